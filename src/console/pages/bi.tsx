// Custom BI: the route switch of its pages.
import { match } from '../router.tsx';
import { BiTemplates } from './bi-templates.tsx';

export function BiPage({ path: _path }: { path: string }) {
  if (match('/bi/templates')) return <BiTemplates />;
  return null;
}
