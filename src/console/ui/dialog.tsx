// A modal dialog (the native <dialog>: focus is trapped, Escape closes it) named by its heading.
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

export function Dialog({
  title,
  open,
  onClose,
  children,
}: {
  title: string;
  open: boolean;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const dialog = ref.current!;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby={id} onClose={onClose}>
      <h2 id={id}>{title}</h2>
      {open && children}
    </dialog>
  );
}
