import { useUi, type Theme } from '../stores/ui';
import { WakeLimits } from './Usage';
import { TestWakesPanel } from './TestWakesPanel';
import { SessionsPanel } from './SessionsPanel';

const SHORTCUTS: Array<[string, string]> = [
  ['Ctrl+K / ⌘K', 'search messages, tasks, files and rooms of every room'],
  ['/', 'search this room’s messages (the palette elsewhere)'],
  ['j / k', 'next / previous item (Needs you, the board)'],
  ['Enter', 'open the item'],
  ['Esc', 'close the dialog or panel'],
  ['c', 'new task (from any view of a room: the board’s New task form)'],
];

/** #/settings: this browser's preferences and the keyboard. */
export function SettingsView({ isPrimary }: { isPrimary: boolean }) {
  const theme = useUi((s) => s.theme);
  const setTheme = useUi((s) => s.setTheme);
  return (
    <section className="settings" aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <fieldset>
        <legend>Colour theme</legend>
        {(['system', 'light', 'dark'] as Theme[]).map((t) => (
          <label key={t} className="row">
            <input type="radio" name="settings-theme" value={t} checked={theme === t} onChange={() => setTheme(t)} /> {t === 'system' ? 'Follow the system' : t === 'light' ? 'Light' : 'Dark'}
          </label>
        ))}
      </fieldset>
      <h2>Keyboard</h2>
      <table className="shortcuts">
        <caption className="sr-only">Keyboard shortcuts</caption>
        <tbody>
          {SHORTCUTS.map(([k, what]) => (
            <tr key={k}>
              <th scope="row">
                <kbd>{k}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <SessionsPanel />
      <TestWakesPanel />
      {isPrimary && <WakeLimits />}
      {isPrimary && <p className="muted">Backups: the indicator in the top bar shows the last one and backs up now.</p>}
    </section>
  );
}
