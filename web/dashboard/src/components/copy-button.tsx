import { useState } from 'react';

/** Copies `text`, and says so in words (announced), not with a colour. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('yes');
    } catch {
      setCopied('no');
    }
  };
  return (
    <span className="copy">
      <button type="button" className="secondary" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status">{copied === 'yes' ? 'Copied.' : copied === 'no' ? 'Copying is blocked here: select the text and copy it.' : ''}</span>
    </span>
  );
}
