import { useState } from 'react';

/** Copies a value shown once (an API key, a signing secret) and says so. */
export function CopyButton(props: { text: string; label?: string }) {
  const [copied, setCopied] = useState<boolean | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.text);
      setCopied(true);
    } catch {
      // No clipboard (an insecure origin, or permission refused): the value stays selectable.
      setCopied(false);
    }
  };
  return (
    <>
      <button type="button" className="btn" onClick={copy}>
        {props.label ?? 'Copy'}
      </button>
      <span role="status" aria-live="polite" className="small muted">
        {copied === true ? 'Copied.' : copied === false ? 'Copying failed: select the text and copy it.' : ''}
      </span>
    </>
  );
}
