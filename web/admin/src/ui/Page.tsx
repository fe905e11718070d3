import { type ReactNode, useEffect } from 'react';
import { strings } from '../strings';

/** A screen: its title (also the document's), actions on the right, then its content. */
export function Page(props: { title: string; actions?: ReactNode; back?: ReactNode; children: ReactNode }) {
  useEffect(() => {
    document.title = strings.common.shopdAdmin(props.title);
  }, [props.title]);
  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-head">
        <div>
          {props.back}
          <h1 id="page-title">{props.title}</h1>
        </div>
        {props.actions ? <div className="page-actions">{props.actions}</div> : null}
      </header>
      {props.children}
    </section>
  );
}

/** A titled panel inside a page. */
export function Card(props: { title?: string; actions?: ReactNode; children: ReactNode; className?: string }) {
  return (
    <section className={`card ${props.className ?? ''}`}>
      {props.title || props.actions ? (
        <header className="card-head">
          {props.title ? <h2>{props.title}</h2> : <span />}
          {props.actions}
        </header>
      ) : null}
      {props.children}
    </section>
  );
}

export function Loading(props: { label?: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      {props.label ?? strings.common.loading}
    </p>
  );
}

/** An error that stopped a screen from loading, with the API's message. */
export function LoadError(props: { error: unknown; retry?: () => void }) {
  const message = props.error instanceof Error ? props.error.message : strings.common.somethingWentWrong;
  return (
    <div className="alert alert-error" role="alert">
      <p>{message}</p>
      {props.retry ? (
        <button type="button" className="btn" onClick={props.retry}>
          {strings.common.tryAgain}
        </button>
      ) : null}
    </div>
  );
}

export function Badge(props: { tone?: 'ok' | 'warn' | 'bad' | 'info' | 'muted'; children: ReactNode }) {
  return <span className={`badge badge-${props.tone ?? 'muted'}`}>{props.children}</span>;
}
