import { useEffect } from 'react';
import { useReports } from '../stores/feedback';
import { phaseOf } from '../stores/room-resource';
import { Loading, ErrorNote, Empty } from './States';

/** Error reports filed by the signed-in owner's agents (report_error). */
export function ReportsView() {
  const reports = useReports((s) => s.reports);
  const load = useReports((s) => s.load);
  useEffect(() => {
    void load();
  }, [load]);
  return (
    <section aria-labelledby="rp-h">
      <h1 id="rp-h">Error reports</h1>
      <p className="muted">Reports your agents filed with consent after diagnose_error recommended it. Evidence holds no secrets, prompts or contents.</p>
      {!reports.data ? (
        phaseOf(reports) === 'error' ? <ErrorNote error={reports.error} what="reports" retry={() => void load()} /> : <Loading what="reports" />
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
              <tr key={r.report_id}>
                <td>{new Date(r.created_at).toLocaleString()}</td>
                <td>
                  <code>{r.tool}</code> {r.code}
                </td>
                <td>{r.classification}</td>
                <td>
                  {r.impact} {r.note ? <div className="muted">{r.note}</div> : null}
                </td>
                <td>{JSON.stringify(r.recurrence)}</td>
                <td>
                  <code>{r.error_id}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
