import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import { Text } from '@codemirror/state';

import { symactDecorations, tokenClass } from '../highlight';

/** [text, class] of every decoration (line decorations give the line's text). */
function decorations(source: string): [string, string][] {
  const doc = Text.of(source.split('\n'));
  const out: [string, string][] = [];
  symactDecorations(doc).between(0, doc.length, (from, to, value) => {
    const spec = value.spec as { class?: string };
    const text = from === to ? doc.lineAt(from).text : doc.sliceString(from, to);
    out.push([text, spec.class ?? '']);
  });
  return out;
}

describe('symactDecorations', () => {
  it('decorates %%symact cells', () => {
    const found = decorations('%%symact\nf(x; k=2) = k*exp(x)  # note');
    assert.deepEqual(found.slice(0, 2), [
      ['%%symact', 'symnb-symact-line'],
      ['%%symact', 'symnb-tok-magic']
    ]);
    for (const pair of [
      ['f', 'symnb-tok-definition'],
      ['k', 'symnb-tok-constant'],
      ['exp', 'symnb-tok-function'],
      ['x', 'symnb-tok-variable'],
      ['2', 'symnb-tok-number'],
      ['# note', 'symnb-tok-comment'],
      ['f(x; k=2) = k*exp(x)  # note', 'symnb-symact-line']
    ]) {
      assert.ok(
        found.some(([t, c]) => t === pair[0] && c === pair[1]),
        `${pair} in ${JSON.stringify(found)}`
      );
    }
  });
  it('leaves other cells alone', () => {
    assert.deepEqual(decorations('import numpy as np\nnp.exp(1)'), []);
    assert.deepEqual(decorations(''), []);
  });
  it('puts hints in titles', () => {
    const doc = Text.of(['%%symact', 'f(x) = x\u00b2']);
    const titles: string[] = [];
    symactDecorations(doc).between(0, doc.length, (_from, _to, value) => {
      const attrs = (value.spec as { attributes?: Record<string, string> }).attributes;
      if (attrs?.title) {
        titles.push(attrs.title);
      }
    });
    assert.equal(titles.length, 1);
    assert.match(titles[0], /\*\*2/);
  });
  it('knows the definitions of cells decorated before', () => {
    // a cell may call what an earlier %%symact cell of the notebook defined
    const call = '%%symact\nlater(x) = xcell_base(x) + 1';
    const before = decorations(call).find(([t]) => t === 'xcell_base');
    assert.equal(before?.[1], 'symnb-tok-unknown');
    decorations('%%symact\nxcell_base(x; k=1) = k*x');
    const after = decorations(call).find(([t]) => t === 'xcell_base');
    assert.equal(after?.[1], 'symnb-tok-function');
  });
  it('skips huge documents', () => {
    const doc = Text.of(['%%symact', 'x'.repeat(200_000)]);
    assert.equal(symactDecorations(doc).size, 0);
  });
  it('names classes after token types', () => {
    assert.equal(tokenClass('option-value'), 'symnb-tok-option-value');
  });
});
