/**
 * The gateway as a real process: `src/main.ts` (as `npm start` runs it, through ts-node)
 * in a child process, with exactly the environment given (plus PATH and HOME), started
 * and stopped by SIGTERM the way an operator's supervisor does.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

/** A started gateway process. */
export interface GatewayProcess {
  readonly child: ChildProcess;
  /** `http://host:port`, as it printed it. */
  readonly url: string;
}

/**
 * Starts `src/main.ts` in its own Node process and resolves once it prints that it listens.
 *
 * @throws Error with its last output when it exits first
 */
export function startGatewayProcess(env: Record<string, string>): Promise<GatewayProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', '-r', 'reflect-metadata', join(root, 'src', 'main.ts')], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /gateway on (http:\/\/[^\s/]+)\/graphql/.exec(output);
      if (match?.[1]) resolve({ child, url: match[1] });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`gateway process exited with ${code}: ${output.slice(-800)}`)));
  });
}

/** Sends SIGTERM (unless it has exited) and resolves to its exit code. */
export async function stopGatewayProcess(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}
