// Custom BI templates: the built-in datasets, each with its columns and their descriptions.
import { api, ok } from '../api.ts';
import { href, Link } from '../router.tsx';
import { can } from '../session.ts';
import { PageHeader } from '../ui/page.tsx';
import { Loaded, useLoad } from '../ui/states.tsx';
import { DataTable } from '../ui/table.tsx';

export function BiTemplates() {
  const list = useLoad(() => ok(api.GET('/v1/bi/templates')), []);
  return (
    <section>
      <PageHeader
        title="Templates"
        lead="Built-in datasets over this workspace's records; no connector needed."
      />
      <Loaded load={list} what="templates">
        {(data) =>
          data.templates.map((t) => (
            <section class="panel" key={t.key} aria-labelledby={`t-${t.key}`}>
              <h2 id={`t-${t.key}`}>
                {t.name} <code>{t.key}</code>
              </h2>
              <p>{t.description}</p>
              {can(['bi:write']) && (
                <p>
                  <Link href={href('/bi/query', { dataset: t.key })}>
                    Query {t.name} in the query builder
                  </Link>
                </p>
              )}
              <DataTable
                caption={`Columns of ${t.key}`}
                csv={false}
                columns={[
                  { key: 'name', label: 'Column', render: (c) => <code>{c.name}</code> },
                  { key: 'type', label: 'Type' },
                  { key: 'role', label: 'Role' },
                  { key: 'description', label: 'Description' },
                ]}
                rows={t.columns}
                rowKey={(c) => c.name}
              />
            </section>
          ))
        }
      </Loaded>
    </section>
  );
}
