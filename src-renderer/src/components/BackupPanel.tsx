import { useCallback, useEffect, useState } from 'react';
import { describeError } from '../api';
import { client } from '../client';
import { BACKUP_CHANGED } from '../live-events';
import type { BackupStatus } from '../types';

export function ago(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} d ago`;
}

/**
 * The last backup of this home and a "Back up now" action (primary owner only; docs/backup.md).
 * Self-contained: it loads the backup status itself and refreshes every minute and after a backup,
 * so it can sit anywhere in the owner area.
 */
export function BackupPanel({ isPrimary }: { isPrimary: boolean }) {
  const [status, setStatus] = useState<BackupStatus | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);

  const load = useCallback(async () => {
    const r = await client.backup.read();
    if (r.ok) setStatus(r.data);
  }, []);

  useEffect(() => {
    if (!isPrimary) return;
    void load();
    // Live: a backup started or ended (scheduled ones too); the minute timer keeps "… ago" fresh.
    const onChanged = () => void load();
    window.addEventListener(BACKUP_CHANGED, onChanged);
    const t = setInterval(() => void load(), 60_000);
    return () => {
      clearInterval(t);
      window.removeEventListener(BACKUP_CHANGED, onChanged);
    };
  }, [isPrimary, load]);

  if (!isPrimary) return null;

  const backUp = async () => {
    setBusy(true);
    setMessage(null);
    // No body: the backup goes to <home>/backups (the client sends {}).
    const r = await client.backup.create();
    setBusy(false);
    setMessage(r.ok ? `Backed up and verified: ${r.data.path}` : `Backup failed: ${describeError(r.error)}`);
    void load();
  };

  const last = status?.last;
  const running = busy || !!status?.running;
  return (
    <section className="backup-panel" aria-label="Backups" data-testid="backup-panel" style={{ display: 'flex', alignItems: 'center', gap: '.5rem' }}>
      <span data-testid="last-backup" title={last ? `${last.path}\n${last.blobs} files' bytes, verified` : 'No backup of this home yet'}>
        {last ? `Last backup ${ago(last.created_at)}` : 'No backup yet'}
        {status && !status.settings.auto ? <span className="muted"> (automatic off)</span> : null}
      </span>
      <button type="button" onClick={() => void backUp()} disabled={running} aria-busy={running}>
        {running ? 'Backing up…' : 'Back up now'}
      </button>
      {message ? (
        // Below the top bar, whole and wrapped: a backup's path is never cut (docs/ui.md "Top bar").
        <p role="status" className="backup-note">
          <span>{message}</span>
          <button type="button" className="ghost" aria-label="Dismiss" onClick={() => setMessage(null)}>
            ×
          </button>
        </p>
      ) : null}
      {status?.last_error && !message ? (
        <span role="alert" className="muted" title={status.last_error.message}>
          Last automatic backup failed
        </span>
      ) : null}
    </section>
  );
}
