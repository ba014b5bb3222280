// The proxy's log file failing (the disk is full) must not crash the proxy in the middle of a
// repetition: the logger says so once on stderr and goes on there.
import { existsSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { requireOrSkip } from '@intutic/testkit';
import { createLogger } from '../src/log.ts';

const fullDisk = requireOrSkip('proxy log on a full disk', { ok: existsSync('/dev/full'), reason: 'no /dev/full to stand in for a full disk (Linux has one)' });

describe.runIf(fullDisk)('the proxy log on a full disk', () => {
  it('survives ENOSPC and goes on logging to stderr', async () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const log = createLogger({ path: '/dev/full' });
      log.info('first line');
      await vi.waitFor(() => expect(written.join('')).toContain('the log file cannot be written'));
      log.warn('second line', { host: 'example.test' });
      await log.close();
      expect(written.join('')).toMatch(/warn the log file cannot be written; logging to stderr from here on path=\/dev\/full error="ENOSPC/);
      expect(written.join('')).toContain('second line host=example.test');
    } finally {
      spy.mockRestore();
    }
  });
});
