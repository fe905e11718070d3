import { useState } from 'react';
import { strings } from '../../strings';

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
        {props.label ?? strings.settings.copy}
      </button>
      <span role="status" aria-live="polite" className="small muted">
        {copied === true ? strings.settings.copied : copied === false ? strings.settings.copyingFailedSelectThe : ''}
      </span>
    </>
  );
}
