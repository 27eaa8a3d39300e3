import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { cliArgs } from './cli-bundle.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ChildServer {
  proc: ChildProcess;
  port: number;
  baseUrl: string;
  stdout: () => string;
  stderr: () => string;
  ownerToken: string;
  /** SIGKILL, no cleanup: a crash. */
  kill(): Promise<void>;
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Runs `agent-rooms serve` from source (cli-bundle.ts) in a child process and waits for the ready line. */
export function spawnServer(home: string, extraArgs: string[] = [], env: Record<string, string> = {}): Promise<ChildServer> {
  const proc = spawn(
    process.execPath,
    [...cliArgs(), 'serve', '--port', '0', '--home', home, ...extraArgs],
    { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`server did not become ready in 30 s\nstdout: ${out}\nstderr: ${err}`));
    }, 30_000);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited early (${code})\nstdout: ${out}\nstderr: ${err}`));
    });
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /agent-rooms listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        proc.removeAllListeners('exit');
        const port = Number(m[1]);
        const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
        resolve({
          proc,
          port,
          baseUrl: `http://127.0.0.1:${port}`,
          stdout: () => out,
          stderr: () => err,
          ownerToken: readFileSync(join(home, 'owner-token'), 'utf8').trim(),
          async kill() {
            proc.kill('SIGKILL');
            await exited;
          },
          async stop() {
            proc.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
  });
}
