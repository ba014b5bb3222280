// The handwritten index.d.ts of the published bundle must describe the implementation: the
// repository's typecheck compiles these assignments, and the runtime check keeps the exports honest.
import { describe, expect, it } from 'vitest';
import type * as Published from '../index.d.ts';
import * as impl from '../src/index.ts';

const createGate: typeof Published.createGate = impl.createGate;
const gate: Published.IntuticGate = impl.createGate({ logDir: null, env: { HOME: '/nonexistent' } });
const checked: Published.CheckedCall = gate.check({ tool: 'noop', input: {} });
const fromImpl: impl.CheckedCall = checked;
const code: Published.GateErrorCode = new impl.GateError('HELD', 'm', checked.decision, 'c').code;

describe('index.d.ts', () => {
  it('declares what the implementation exports', () => {
    expect(typeof createGate).toBe('function');
    expect(Object.keys(impl).sort()).toEqual(['GateError', 'IntuticGate', 'createGate']);
    expect([fromImpl.tool, code]).toEqual(['noop', 'HELD']);
  });
});
