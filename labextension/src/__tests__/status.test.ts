import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import {
  STATUS_EXPRESSION,
  formatStatus,
  formatTooltip,
  parseStatusResult
} from '../status';

describe('parseStatusResult', () => {
  const payload = { loaded: true, backend: 'cpp', device: 'cpu', version: '0.1.0' };

  it('reads application/json', () => {
    assert.deepEqual(
      parseStatusResult({ status: 'ok', data: { 'application/json': payload } }),
      { backend: 'cpp', device: 'cpu', version: '0.1.0' }
    );
  });
  it('reads JSON text/plain', () => {
    const text = JSON.stringify({ ...payload, backend: 'cuda', device: 'cuda:0' });
    assert.deepEqual(parseStatusResult({ status: 'ok', data: { 'text/plain': text } }), {
      backend: 'cuda',
      device: 'cuda:0',
      version: '0.1.0'
    });
  });
  it('leaves an unknown device empty', () => {
    for (const device of [undefined, '', 'auto', 3]) {
      const result = parseStatusResult({
        status: 'ok',
        data: { 'application/json': { backend: 'auto', device } }
      });
      assert.equal(result?.device, '');
    }
  });
  it('hides when symnb is not loaded or on errors', () => {
    const hidden = [
      undefined,
      null,
      { status: 'error', ename: 'ModuleNotFoundError' },
      { status: 'ok', data: { 'text/plain': 'False' } },
      { status: 'ok', data: { 'text/plain': 'None' } },
      { status: 'ok', data: { 'text/plain': '[1, 2]' } },
      { status: 'ok', data: { 'text/plain': 42 } },
      { status: 'ok', data: { 'application/json': { loaded: false, backend: 'cpp' } } },
      { status: 'ok', data: { 'application/json': { backend: '' } } },
      { status: 'ok', data: { 'application/json': { backend: 3 } } },
      { status: 'ok' }
    ];
    for (const result of hidden) {
      assert.equal(parseStatusResult(result as never), null, JSON.stringify(result));
    }
  });
});

describe('formatting', () => {
  it('shows backend and device', () => {
    assert.equal(formatStatus({ backend: 'cpp', device: 'cpu' }), 'symnb: cpp \u00b7 cpu');
    assert.equal(formatStatus({ backend: 'auto', device: '' }), 'symnb: auto');
    const tip = formatTooltip({ backend: 'cuda', device: 'cuda:0', version: '0.1.0' });
    assert.match(tip, /symnb 0\.1\.0/);
    assert.match(tip, /device: cuda:0/);
  });
});

describe('the kernel expression', () => {
  it('does not import symnb unless it is loaded', () => {
    assert.match(STATUS_EXPRESSION, /^__import__\('sys'\)\.modules\.get\('symnb'\) is not None and /);
    assert.match(STATUS_EXPRESSION, /symnb\.notebook\.labstatus/);
    assert.ok(!STATUS_EXPRESSION.includes('\n'));
  });
});
