/**
 * A URL's credentials are never printed in clear: not in the start line of `npm start`
 * (its upstream), not by `--print-config` (any URL setting), not in the refusal of a bad
 * URL setting. One helper, `redactUrlCredentials`, does it everywhere.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { gatewayCommand } from '../../src/cli/gateway-cli';
import { ConfigError, loadConfig, redactUrlCredentials } from '../../src/config';
import { compiledEntry } from '../support/compiled';

const root = join(__dirname, '..', '..');
const PASSWORD = 'upstream-pa55word-in-url';

describe('redactUrlCredentials', () => {
  it.each([
    [`https://user:${PASSWORD}@api.example/req`, 'https://user:redacted@api.example/req'],
    [`redis://:${PASSWORD}@redis.internal:6379/0`, 'redis://:redacted@redis.internal:6379/0'],
    [`https://${PASSWORD}@api.example/req`, 'https://redacted@api.example/req'],
    ['https://api.example/req', 'https://api.example/req'],
    ['not a url', 'not a url'],
    [`http://user:${PASSWORD}@:99999/x`, 'http://redacted@:99999/x'],
  ])('shows %s as %s', (text, shown) => {
    expect(redactUrlCredentials(text)).toBe(shown);
  });
});

describe('URL credentials in the command line and the start line', () => {
  it('--print-config shows STATEV_BASE_URL and the OTLP endpoints without their password', () => {
    const command = gatewayCommand(['--print-config'], {
      STATEV_BASE_URL: `https://user:${PASSWORD}@api.example/req`,
      OTEL_EXPORTER_OTLP_ENDPOINT: `https://collector:${PASSWORD}@otel.example:4318`,
    });
    if ('run' in command) throw new Error('expected output');
    expect(command.stdout).not.toContain(PASSWORD);
    expect(command.stdout).toContain('STATEV_BASE_URL=https://user:redacted@api.example/req');
    expect(command.stdout).toContain('OTEL_EXPORTER_OTLP_ENDPOINT=https://collector:redacted@otel.example:4318');
  });

  it('a refused URL setting does not repeat its password', () => {
    let message = '';
    try {
      loadConfig({ STATEV_BASE_URL: `ftp://user:${PASSWORD}@api.example/req` });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message).toContain('Setting STATEV_BASE_URL="ftp://user:redacted@api.example/req" is invalid');
    expect(message).not.toContain(PASSWORD);
  });

  it("npm start's start line names the upstream without its password", async () => {
    const child = spawn(process.execPath, [compiledEntry('main.ts')], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        PORT: '0',
        LOG_LEVEL: 'silent',
        CACHE_FILE: 'off',
        STATEV_BASE_URL: `http://user:${PASSWORD}@127.0.0.1:9/req`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const line = await new Promise<string>((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        output += chunk.toString();
        const found = /^StateV GraphQL gateway on .*$/m.exec(output);
        if (found) resolve(found[0]);
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      void exited.then(() => reject(new Error(`exited first: ${output}`)));
    });
    child.kill('SIGTERM');
    await exited;
    expect(line).toMatch(/\(upstream http:\/\/user:redacted@127\.0\.0\.1:9\/req\)$/);
    expect(output).not.toContain(PASSWORD);
  }, 30_000);
});
