import { useEffect, useRef, type ReactNode } from 'react';

/** A modal on the native <dialog>: focus moves in, Escape closes, focus returns to the opener. */
export function Dialog({ title, onClose, children, wide, sheet, className }: { title: string; onClose: () => void; children: ReactNode; wide?: boolean; sheet?: boolean; className?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  const closeRef = useRef(onClose);
  closeRef.current = onClose;
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const d = ref.current!;
    if (!d.open) d.showModal();
    const onCancel = (e: Event) => {
      e.preventDefault();
      closeRef.current();
    };
    d.addEventListener('cancel', onCancel);
    const first = d.querySelector<HTMLElement>('[autofocus], input, select, textarea, button:not(.dialog-close)');
    first?.focus();
    return () => {
      d.removeEventListener('cancel', onCancel);
      if (d.open) d.close();
      opener?.focus?.();
    };
  }, []);
  const titleId = `dlg-${title.replace(/\W+/g, '-').toLowerCase().slice(0, 60)}`;
  return (
    <dialog ref={ref} className={`dialog ${wide ? 'wide' : ''} ${sheet ? 'sheet' : ''} ${className ?? ''}`} aria-labelledby={titleId}>
      <header className="dialog-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="dialog-close ghost" onClick={() => closeRef.current()} aria-label="Close dialog">
          ×
        </button>
      </header>
      {children}
    </dialog>
  );
}

/** Asks before a destructive act. */
export function Confirm({
  title,
  text,
  action,
  onConfirm,
  onClose,
  keep = 'Keep it',
  danger = true,
}: {
  title: string;
  text: string;
  action: string;
  onConfirm: () => void | Promise<void>;
  onClose: () => void;
  keep?: string;
  danger?: boolean;
}) {
  return (
    <Dialog title={title} onClose={onClose}>
      <p>{text}</p>
      <div className="row end">
        <button type="button" onClick={onClose} autoFocus>
          {keep}
        </button>
        <button
          type="button"
          className={danger ? 'danger' : 'primary'}
          onClick={async () => {
            await onConfirm();
            onClose();
          }}
        >
          {action}
        </button>
      </div>
    </Dialog>
  );
}
