// The page cursor of a list, kept in the URL with the cursors of the pages before it (so Previous works).
import { param, setParams } from '../router.tsx';

export function paging() {
  const cursor = param('cursor');
  const back = param('back') ? param('back').split(',') : [];
  return {
    cursor,
    back,
    go: (next: string | undefined, before: string[]) =>
      setParams({ cursor: next, back: before.join(',') || undefined }, { keepCursor: true }),
  };
}
