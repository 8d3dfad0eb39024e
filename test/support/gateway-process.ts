/**
 * The gateway as a real process: `src/main.ts`, compiled (as `npm start` runs `dist/src/main.js`;
 * see compiled.ts), in a child process, with exactly the environment given (plus PATH and HOME), started
 * and stopped by SIGTERM the way an operator's supervisor does.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { DEMO_KEYS } from '../../src/simulator';
import { compiledEntry } from './compiled';

const root = join(__dirname, '..', '..');

/** A started gateway process. */
export interface GatewayProcess {
  readonly child: ChildProcess;
  /** `http://host:port`, as it printed it. */
  readonly url: string;
}

/**
 * Starts `src/main.ts` (compiled) in its own Node process and resolves once it prints that it listens.
 *
 * @throws Error with its last output when it exits first
 */
export function startGatewayProcess(env: Record<string, string>): Promise<GatewayProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [compiledEntry('main.ts')], {
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

/** What a process printed and how it ended (see {@link outputUntilExit}). */
export interface ProcessOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Collects what a child with piped stdout and stderr prints until it closes them.
 *
 * @returns its exit code and both outputs; rejects when it cannot be started
 */
export function outputUntilExit(child: ChildProcess): Promise<ProcessOutput> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A GraphQL answer of a gateway process, as {@link postToProcess} reads it. */
export interface ProcessAnswer {
  data?: unknown;
  errors?: unknown[];
  extensions?: { upstream?: { requests: number } };
}

/** POSTs a GraphQL body to a gateway process at `url` (`http://host:port`) with the premium demo key. */
export async function postToProcess(url: string, body: unknown): Promise<ProcessAnswer> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${DEMO_KEYS.premium.key}` },
    body: JSON.stringify(body),
  });
  return (await response.json()) as ProcessAnswer;
}
