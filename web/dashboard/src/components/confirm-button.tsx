import { useEffect, useRef } from 'react';

/** The confirming button takes the focus, so that a keyboard user answers the question at once. */
export function ConfirmButton({ children, disabled, onClick }: { children: string; disabled: boolean; onClick: () => void }) {
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => button.current?.focus(), []);
  return (
    <button ref={button} type="button" className="danger" disabled={disabled} onClick={onClick}>
      {children}
    </button>
  );
}
