import type { ReactNode } from 'react';
import { describeError, type ApiError } from '../api';

export function Loading({ what }: { what: string }) {
  return (
    <p className="state loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="state empty">{children}</div>;
}

export function ErrorNote({ error, retry, what }: { error?: ApiError | string; retry?: () => void; what?: string }) {
  if (!error) return null;
  const text = typeof error === 'string' ? error : describeError(error);
  return (
    <div className="state error" role="alert">
      <span>
        {what ? `Could not load ${what}: ` : ''}
        {text}
        {typeof error !== 'string' && error.code && (
          <details className="error-detail">
            <summary>Details</summary>
            <code>{error.code}</code>
            {error.error_id ? <> · {error.error_id}</> : null}
          </details>
        )}
      </span>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}
