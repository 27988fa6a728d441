// The metric expression grammar (peggy), compiled once at module load into a parser that returns the AST
// of metric-expression.ts. An expression: aggregates of columns, each with an optional `where` filter,
// combined with + - * / and numeric literals; names are checked against the dataset afterwards.
//   sum(amount_cents where stage_kind = 'won') / sum(amount_cents)
//   count(* where status in ('new', 'open')) * 100 / count(*)
export const METRIC_GRAMMAR = String.raw`
Expression = _ e:Additive _ { return e; }

Additive = head:Multiplicative tail:(_ ("+" / "-") _ Multiplicative)* {
  return tail.reduce((left, t) => ({ kind: 'binary', op: t[1], left, right: t[3] }), head);
}

Multiplicative = head:Unary tail:(_ ("*" / "/") _ Unary)* {
  return tail.reduce((left, t) => ({ kind: 'binary', op: t[1], left, right: t[3] }), head);
}

Unary = "-" _ operand:Unary { return { kind: 'negate', operand }; }
  / Primary

Primary = Number
  / Aggregate
  / "(" _ e:Additive _ ")" { return e; }

Aggregate = fn:Identifier _ "(" _ arg:("*" / Identifier) filter:(__ "where" __ Condition)? _ ")" {
  return { kind: 'aggregate', fn, column: arg === '*' ? null : arg, where: filter ? filter[3] : null };
}

Condition = head:Conjunction tail:(__ "or" __ Conjunction)* {
  return tail.reduce((left, t) => ({ kind: 'or', left, right: t[3] }), head);
}

Conjunction = head:Negation tail:(__ "and" __ Negation)* {
  return tail.reduce((left, t) => ({ kind: 'and', left, right: t[3] }), head);
}

Negation = "not" __ operand:Negation { return { kind: 'not', operand }; }
  / "(" _ c:Condition _ ")" { return c; }
  / Comparison

Comparison = column:Identifier __ "is" negated:(__ "not")? __ "null" {
    return { kind: 'null', column, negated: negated !== null };
  }
  / column:Identifier negated:(__ "not")? __ "in" _ "(" _ head:Literal tail:(_ "," _ Literal)* _ ")" {
    return { kind: 'in', column, negated: negated !== null, values: [head, ...tail.map((t) => t[3])] };
  }
  / column:Identifier _ op:("!=" / "<>" / ">=" / "<=" / "=" / ">" / "<") _ value:Literal {
    return { kind: 'compare', column, op: op === '<>' ? '!=' : op, value };
  }

Literal = Number { return text().includes('.') ? parseFloat(text()) : parseInt(text(), 10); }
  / "'" chars:("''" { return "'"; } / [^'])* "'" { return chars.join(''); }
  / "true" !IdentifierChar { return true; }
  / "false" !IdentifierChar { return false; }

Number = [0-9]+ ("." [0-9]+)? { return { kind: 'number', value: Number(text()) }; }

Identifier = !(Keyword !IdentifierChar) [a-z_] IdentifierChar* { return text(); }

IdentifierChar = [a-z0-9_]

Keyword = "where" / "and" / "or" / "not" / "in" / "is" / "null" / "true" / "false"

_ "whitespace" = [ \t\r\n]*

__ "whitespace" = [ \t\r\n]+ / &"(" / &"'"
`;
