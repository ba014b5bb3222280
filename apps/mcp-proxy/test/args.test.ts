import { describe, expect, it } from 'vitest';
import { defaultServerName, parseArgs } from '../src/args.ts';

describe('parseArgs', () => {
  it('takes --name and everything after -- as the server command', () => {
    expect(parseArgs(['--name', 'fs', '--', 'node', 'server.js', '--flag', '/root'])).toEqual({
      kind: 'run',
      options: { name: 'fs', command: 'node', args: ['server.js', '--flag', '/root'] },
    });
    expect(parseArgs(['--name=fs', 'npx', '-y', 'pkg'])).toEqual({ kind: 'run', options: { name: 'fs', command: 'npx', args: ['-y', 'pkg'] } });
  });

  it('defaults the name to the command file name', () => {
    expect(parseArgs(['--', '/usr/local/bin/mcp-server-filesystem.js', '.'])).toMatchObject({ options: { name: 'mcp-server-filesystem' } });
    expect(defaultServerName('node')).toBe('node');
  });

  it('answers help and version, and rejects bad usage with E_USAGE', () => {
    expect(parseArgs(['--help'])).toEqual({ kind: 'help' });
    expect(parseArgs(['-v'])).toEqual({ kind: 'version' });
    for (const argv of [[], ['--name'], ['--name', 'fs'], ['--bogus', '--', 'x'], ['--name', 'fs', '--']]) {
      expect(() => parseArgs(argv), argv.join(' ')).toThrow(expect.objectContaining({ code: 'E_USAGE' }));
    }
  });
});
