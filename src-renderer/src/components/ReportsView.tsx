import { useEffect } from 'react';
import { useWakes } from '../stores/wakes';
import { Loading, ErrorNote, Empty } from './States';

const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));

/** Error reports filed by the signed-in owner's agents (report_error). */
export function ReportsView() {
  const reports = useWakes((s) => s.reports);
  const load = useWakes((s) => s.loadReports);
  useEffect(() => {
    void load();
  }, [load]);
  return (
    <section aria-labelledby="rp-h">
      <h1 id="rp-h">Error reports</h1>
      <p className="muted">Reports your agents filed with consent after diagnose_error recommended it. Evidence holds no secrets, prompts or contents.</p>
      {reports.status === 'loading' && !reports.data ? (
        <Loading what="reports" />
      ) : !reports.data ? (
        <ErrorNote error={reports.error} what="reports" retry={() => void load()} />
      ) : reports.data.length === 0 ? (
        <Empty>No error reports. Good news.</Empty>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Tool and code</th>
              <th scope="col">Classification</th>
              <th scope="col">Impact and note</th>
              <th scope="col">Recurrence</th>
              <th scope="col">Error id</th>
            </tr>
          </thead>
          <tbody>
            {reports.data.map((r) => (
              <tr key={str(r.report_id)}>
                <td>{r.created_at ? new Date(str(r.created_at)).toLocaleString() : ''}</td>
                <td>
                  <code>{str(r.tool)}</code> {str(r.code)}
                </td>
                <td>{str(r.classification)}</td>
                <td>
                  {str(r.impact)} {r.note ? <div className="muted">{str(r.note)}</div> : null}
                </td>
                <td>{typeof r.recurrence === 'object' && r.recurrence ? JSON.stringify(r.recurrence) : str(r.recurrence)}</td>
                <td>
                  <code>{str(r.error_id)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
