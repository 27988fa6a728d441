import { Type } from '@sinclair/typebox';

/** A string enum as a union of literals, typed as the union of its values. */
export const oneOf = <T extends string>(values: readonly T[], description?: string) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    description ? { description } : {},
  );

export const entryStatus = oneOf(['draft', 'review', 'published', 'archived'] as const);
export const marketingChannel = oneOf(['email', 'social', 'ads', 'web', 'event', 'other'] as const);
export const campaignStatus = oneOf(['planned', 'active', 'paused', 'completed'] as const);
export const postStatus = oneOf(['draft', 'scheduled', 'published'] as const);
