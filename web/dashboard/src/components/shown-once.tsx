import { type ReactNode, useEffect, useId, useRef } from 'react';
import { CopyButton } from './copy-button';

/**
 * A key or secret the API shows this once: why to copy it now (`children`), the value, a copy
 * button and "I have copied it". With `focus`, the heading takes the focus whenever the value
 * changes, so keyboard and screen-reader users find it (the control that made it may be gone).
 */
export function ShownOnce({
  title,
  headingId,
  level = 2,
  className = 'card shown-once',
  value,
  valueLabel,
  testId,
  copyLabel,
  focus = false,
  onDone,
  children,
}: {
  title: ReactNode;
  /** The heading's id, when something outside names it (otherwise one of its own). */
  headingId?: string;
  level?: 2 | 3;
  className?: string;
  value: string;
  valueLabel?: string;
  testId: string;
  copyLabel: string;
  focus?: boolean;
  onDone: () => void;
  children: ReactNode;
}) {
  const ownId = useId();
  const id = headingId ?? ownId;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focus) heading.current?.focus();
  }, [focus, value]);
  const Heading = level === 2 ? 'h2' : 'h3';
  return (
    <section className={className} aria-labelledby={id}>
      <Heading id={id} ref={heading} tabIndex={focus ? -1 : undefined}>
        {title}
      </Heading>
      {children}
      <pre className="snippet" tabIndex={0} aria-label={valueLabel}>
        <code data-testid={testId}>{value}</code>
      </pre>
      <CopyButton text={value} label={copyLabel} />{' '}
      <button type="button" className="secondary" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}
