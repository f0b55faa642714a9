import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import { EXAMPLE_CELL } from '../example';
import {
  ISymactToken,
  KNOWN_FUNCTIONS,
  definedNames,
  isSymactCell,
  tokenizeSymact
} from '../tokenizer';

/** [text, type] pairs, easier to read in assertions. */
function pairs(source: string): [string, string][] {
  return tokenizeSymact(source).map(t => [source.slice(t.from, t.to), t.type]);
}

function typeOf(source: string, text: string, nth = 0): string | undefined {
  const found = pairs(source).filter(([t]) => t === text);
  return found[nth]?.[1];
}

function assertWellFormed(source: string, tokens: ISymactToken[]): void {
  let last = 0;
  for (const token of tokens) {
    assert.ok(token.from >= last, `overlap at ${token.from}`);
    assert.ok(token.to > token.from, `empty token at ${token.from}`);
    assert.ok(token.to <= source.length);
    assert.ok(!source.slice(token.from, token.to).includes('\n'));
    last = token.to;
  }
}

describe('isSymactCell', () => {
  it('recognises the magic on the first line', () => {
    assert.equal(isSymactCell('%%symact\nf(x) = x'), true);
    assert.equal(isSymactCell('%%symact --backend cpp\nf(x) = x'), true);
    assert.equal(isSymactCell('  %%symact'), true);
  });
  it('ignores other cells', () => {
    assert.equal(isSymactCell('import symnb'), false);
    assert.equal(isSymactCell('%%symactx\n'), false);
    assert.equal(isSymactCell('%%symact-other\n'), false);
    assert.equal(isSymactCell('x = 1\n%%symact'), false);
    assert.equal(isSymactCell('%symact'), false);
    assert.equal(isSymactCell(''), false);
  });
  it('gives no tokens for other cells', () => {
    assert.deepEqual(tokenizeSymact('def f(x):\n    return x'), []);
  });
});

describe('the magic line', () => {
  const source = '%%symact --backend cpp --range -4:4 --device 1 --no-plot # hi';
  it('colours the magic, options, values and numbers', () => {
    assert.deepEqual(pairs(source), [
      ['%%symact', 'magic'],
      ['--backend', 'option'],
      ['cpp', 'option-value'],
      ['--range', 'option'],
      ['-4', 'number'],
      [':', 'punctuation'],
      ['4', 'number'],
      ['--device', 'option'],
      ['1', 'number'],
      ['--no-plot', 'option'],
      ['# hi', 'comment']
    ]);
  });
});

describe('definition heads', () => {
  const source = '%%symact\nswish(x; beta=1.0) = x*sigmoid(beta*x)';
  it('colours the name, variables, constants and defaults', () => {
    assert.deepEqual(pairs(source).slice(1), [
      ['swish', 'definition'],
      ['(', 'punctuation'],
      ['x', 'variable'],
      [';', 'punctuation'],
      ['beta', 'constant'],
      ['=', 'operator'],
      ['1.0', 'number'],
      [')', 'punctuation'],
      ['=', 'operator'],
      ['x', 'variable'],
      ['*', 'operator'],
      ['sigmoid', 'function'],
      ['(', 'punctuation'],
      ['beta', 'constant'],
      ['*', 'operator'],
      ['x', 'variable'],
      [')', 'punctuation']
    ]);
  });
  it('handles several constants and spaces', () => {
    const s = '%%symact\n  f ( x ;  a = -2 , b=3e-2 ) =a*x + b';
    assert.equal(typeOf(s, 'f'), 'definition');
    assert.equal(typeOf(s, 'a'), 'constant');
    assert.equal(typeOf(s, 'b'), 'constant');
    assert.equal(typeOf(s, '3e-2'), 'number');
    assert.equal(typeOf(s, 'a', 1), 'constant');
    assert.equal(typeOf(s, 'x', 1), 'variable');
  });
  it('handles losses with two variables', () => {
    const s = '%%symact --loss\nmy_mse(y_pred, y_true) = (y_pred - y_true)**2';
    assert.equal(typeOf(s, 'my_mse'), 'definition');
    assert.equal(typeOf(s, 'y_pred'), 'variable');
    assert.equal(typeOf(s, 'y_true', 1), 'variable');
    assert.equal(typeOf(s, '**'), 'operator');
    assert.equal(typeOf(s, '2'), 'number');
    assert.equal(typeOf(s, '--loss'), 'option');
  });
  it('reads learnable constants with nested parentheses and strings', () => {
    const s =
      '%%symact\nprelu(x; a=learnable(0.25, per="neuron"), b=2) = Max(0, x) + a*Min(0, x) + b';
    assert.deepEqual(pairs(s).slice(1, 17), [
      ['prelu', 'definition'],
      ['(', 'punctuation'],
      ['x', 'variable'],
      [';', 'punctuation'],
      ['a', 'constant'],
      ['=', 'operator'],
      ['learnable', 'function'],
      ['(', 'punctuation'],
      ['0.25', 'number'],
      [',', 'punctuation'],
      ['per', 'option'],
      ['=', 'operator'],
      ['"neuron"', 'string'],
      [')', 'punctuation'],
      [',', 'punctuation'],
      ['b', 'constant']
    ]);
    assert.equal(typeOf(s, 'a', 1), 'constant');
    assert.equal(typeOf(s, 'b', 1), 'constant');
    assert.equal(typeOf(s, 'Max'), 'function');
  });
  it('keeps the scope on continuation lines', () => {
    const s = '%%symact\nlong(x; a=1, b=2) = a*tanh(x) \\\n    + b*x';
    assert.equal(typeOf(s, 'b', 1), 'constant');
    assert.equal(typeOf(s, 'x', 2), 'variable');
  });
  it('does not take a comparison for a head', () => {
    const s = '%%symact\nf(x) == 1';
    assert.equal(typeOf(s, 'f'), 'unknown');
    assert.equal(typeOf(s, '=='), 'operator');
  });
  it('scopes names to their own definition', () => {
    const s = '%%symact\nf(x; k=1) = k*x\ng(z) = k*z';
    assert.equal(typeOf(s, 'k', 1), 'constant');
    assert.equal(typeOf(s, 'k', 2), 'unknown');
    assert.equal(typeOf(s, 'z', 1), 'variable');
  });
});

describe('calls between definitions', () => {
  // symnb builds a cell's definitions in call order (symnb/notebook/magics.py
  // _in_build_order), so a call to a definition below its caller is valid
  it('marks a call to a definition above or below as a function', () => {
    for (const s of [
      '%%symact\nf(x) = x*sigmoid(x)\ng(x) = f(x) + 1',
      '%%symact\ng(x) = f(x) + 1\nf(x) = x*sigmoid(x)',
      '%%symact\ndef g(x):\n    return f(x) + 1\ndef f(x):\n    return x*sigmoid(x)'
    ]) {
      assert.ok(pairs(s).some(([t, type]) => t === 'f' && type === 'definition'), s);
      const call = tokenizeSymact(s).find(
        t => s.slice(t.from, t.to) === 'f' && s[t.to] === '(' && s.slice(t.to, t.to + 6) === '(x) + '
      );
      assert.equal(call?.type, 'function', s);
      assert.equal(call?.hint, undefined);
    }
  });
  it('still marks a name that no cell defines', () => {
    const s = '%%symact\ng(x) = f2(x) + 1\nf(x) = x';
    assert.equal(typeOf(s, 'f2'), 'unknown');
  });
  it('accepts definitions of other cells when given', () => {
    const s = '%%symact\ng(x) = base(x) + 1';
    assert.equal(typeOf(s, 'base'), 'unknown');
    const token = tokenizeSymact(s, ['base']).find(t => s.slice(t.from, t.to) === 'base');
    assert.equal(token?.type, 'function');
    // and forgets them for the next cell tokenized without them
    assert.equal(typeOf(s, 'base'), 'unknown');
  });
  it('lists the names a cell defines', () => {
    const s =
      '%%symact --backend cpp\nswish(x; beta=1.0) = x*sigmoid(beta*x)\n' +
      'f(x) == 1\ndef mish(x):\n    return x*tanh(softplus(x))\n' +
      'class PSwish(nn.Module):\n    def forward(self, x):\n        return x';
    assert.deepEqual(definedNames(s), ['swish', 'mish', 'PSwish']);
    assert.deepEqual(definedNames('f(x) = x'), []);
  });
});

describe('bodies', () => {
  it('marks known functions, pi and E', () => {
    const s = '%%symact\nbump(x) = exp(-x**2) + pi*E + gelu(x) + log1p(x)';
    for (const name of ['exp', 'gelu', 'log1p']) {
      assert.equal(typeOf(s, name), 'function', name);
    }
    assert.equal(typeOf(s, 'pi'), 'constant');
    assert.equal(typeOf(s, 'E'), 'constant');
  });
  it('marks unknown names with a hint', () => {
    const s = '%%symact\nf(x) = sigmod(x)';
    const token = tokenizeSymact(s).find(t => s.slice(t.from, t.to) === 'sigmod');
    assert.equal(token?.type, 'unknown');
    assert.match(token?.hint ?? '', /sigmod/);
  });
  it('reads True, False and None as literals, not unknown names', () => {
    const s =
      '%%symact\nf(x) = F.elu(x, inplace=True) + np.clip(x, 0, None)' +
      ' + Piecewise((x, x > 0), (0, True)) + F.relu(x, inplace=False)';
    for (const name of ['True', 'None', 'False']) {
      assert.equal(typeOf(s, name), 'number', name);
    }
    assert.equal(typeOf(s, 'inplace'), 'option');
    assert.equal(typeOf('%%symact\nf(x) = Ture*x', 'Ture'), 'unknown');
  });
  it('treats x as the variable before any head', () => {
    assert.equal(typeOf('%%symact\nx*sigmoid(x)', 'x'), 'variable');
  });
  it('splits 2x into a number and a name, keeps x2 whole', () => {
    const s = '%%symact\nf(x2) = 2x2 + x2';
    assert.deepEqual(pairs(s).slice(-5), [
      ['=', 'operator'],
      ['2', 'number'],
      ['x2', 'variable'],
      ['+', 'operator'],
      ['x2', 'variable']
    ]);
  });
  it('reads numbers in all forms', () => {
    const s = '%%symact\nf(x) = 1 + 2.5 + .5 + 1e-3 + 6.02E+23 + 3.';
    const numbers = pairs(s).filter(([, t]) => t === 'number').map(([n]) => n);
    assert.deepEqual(numbers, ['1', '2.5', '.5', '1e-3', '6.02E+23', '3.']);
  });
  it('reads all operators', () => {
    const s = '%%symact\nf(x) = where(x >= 0, x, -x) ^ 2 / 3 <= 1 != 0 & ~1 | 2 < 3 > 4';
    const ops = pairs(s).filter(([, t]) => t === 'operator').map(([o]) => o);
    assert.deepEqual(ops, ['=', '>=', '-', '^', '/', '<=', '!=', '&', '~', '|', '<', '>']);
  });
  it('colours comments, whole or trailing', () => {
    const s = '%%symact\n# a comment with sigmoid(x)\nf(x) = x  # identity';
    assert.equal(typeOf(s, '# a comment with sigmoid(x)'), 'comment');
    assert.equal(typeOf(s, '# identity'), 'comment');
    assert.equal(typeOf(s, 'sigmoid'), undefined);
  });
  it('flags look-alike characters with the ASCII to type', () => {
    const s = '%%symact\nf(x) = x\u00b2 \u2212 2\u00d7x';
    const invalid = tokenizeSymact(s).filter(t => t.type === 'invalid');
    assert.deepEqual(
      invalid.map(t => s.slice(t.from, t.to)),
      ['\u00b2', '\u2212', '\u00d7']
    );
    assert.match(invalid[0].hint ?? '', /\*\*2/);
    assert.match(invalid[1].hint ?? '', /type -/);
  });
  it('flags strings and keeps astral characters whole', () => {
    const s = "%%symact\nf(x) = 'a' + \u{1d465}";
    const invalid = tokenizeSymact(s).filter(t => t.type === 'invalid');
    assert.deepEqual(invalid.map(t => s.slice(t.from, t.to)), ["'", "'", '\u{1d465}']);
    assert.match(invalid[0].hint ?? '', /strings/);
  });
});

describe('robustness', () => {
  it('produces ordered, non-overlapping tokens on awkward input', () => {
    const inputs = [
      '%%symact',
      '%%symact\n',
      '%%symact\r\nf(x) = x\r\n',
      '%%symact --range\n\n\nf(',
      '%%symact\nf(x; = ) = ((((',
      '%%symact\n' + 'x+'.repeat(5000),
      '%%symact\n\u0000\t\u00a0$@?`\\.',
      EXAMPLE_CELL
    ];
    for (const source of inputs) {
      assertWellFormed(source, tokenizeSymact(source));
    }
  });
  it('is fast enough for every keystroke', () => {
    const source = '%%symact\n' + 'f(x; a=1) = a*sigmoid(x) + exp(-x**2)\n'.repeat(2000);
    const start = Date.now();
    const tokens = tokenizeSymact(source);
    assert.ok(tokens.length > 2000 * 10);
    assert.ok(Date.now() - start < 1000);
  });
});

describe('the example cell', () => {
  it('is a clean %%symact cell', () => {
    const tokens = tokenizeSymact(EXAMPLE_CELL);
    assert.ok(isSymactCell(EXAMPLE_CELL));
    const types = new Set(tokens.map(t => t.type));
    assert.ok(types.has('definition'));
    assert.ok(types.has('function'));
    assert.ok(!types.has('unknown'));
    assert.ok(!types.has('invalid'));
  });
  it('only calls known functions', () => {
    assert.ok(KNOWN_FUNCTIONS.has('sigmoid'));
  });
});

describe('other libraries\' spellings', () => {
  it('colours a module path and the function symnb maps after it', () => {
    const source = '%%symact\nf(x) = np.tanh(x) + torch.nn.functional.silu(x) + np.square(x)';
    assert.equal(typeOf(source, 'np.'), 'function');
    assert.equal(typeOf(source, 'tanh'), 'function');
    assert.equal(typeOf(source, 'torch.nn.functional.'), 'function');
    assert.equal(typeOf(source, 'silu'), 'function');
    assert.equal(typeOf(source, 'square'), 'function');
  });
  it('flags an unknown name after a module and any other attribute', () => {
    const source = '%%symact\nf(x) = np.foo(x) + os.system(x)';
    assert.equal(typeOf(source, 'foo'), 'unknown');
    assert.equal(typeOf(source, 'os'), 'unknown');
  });
  it("knows Euler's e, np.pi and the bare aliases", () => {
    const source = '%%symact\nf(x) = ln(1 + e^x) + np.pi*expit(x) + x*Phi(x)';
    assert.equal(typeOf(source, 'e'), 'constant');
    assert.equal(typeOf(source, 'pi'), 'constant');
    assert.equal(typeOf(source, 'expit'), 'function');
    assert.equal(typeOf(source, 'Phi'), 'function');
  });
  it("colours a library function's keyword arguments as options, not unknown names", () => {
    const source =
      '%%symact\nf(x) = elu(x, alpha=0.5) + torch.clamp(x, min=0, max = 6) + where(x == 0, 1, x)';
    assert.equal(typeOf(source, 'alpha'), 'option');
    assert.equal(typeOf(source, 'min'), 'option');
    assert.equal(typeOf(source, 'max'), 'option');
    // a comparison is not a keyword; outside a call a name before = stays a name
    assert.equal(typeOf(source, 'x', 3), 'variable');
    assert.equal(typeOf('%%symact\nalpha = 1', 'alpha'), 'unknown');
  });
  it('reads a conditional expression and a quoted keyword value', () => {
    const source = "%%symact\nf(x) = x if x > 0 else gelu(x, approximate='tanh')";
    assert.equal(typeOf(source, 'if'), 'operator');
    assert.equal(typeOf(source, 'else'), 'operator');
    assert.equal(typeOf(source, "'tanh'"), 'string');
    assert.equal(typeOf(source, 'approximate'), 'option');
    // a quote outside a call is still no formula syntax
    assert.equal(typeOf("%%symact\nf(x) = 'x'", "'"), 'invalid');
  });
  it('reads a long chain of dotted names in linear time', { timeout: 20000 }, () => {
    // each position matched the whole chain and joined all its prefixes (cubic:
    // 2.4 s for 1000 links, the browser frozen for hours at 20000)
    const links = 20000;
    const source = '%%symact\nf(x) = ' + 'np.'.repeat(links) + 'x';
    const modules = pairs(source).filter(([t, type]) => t === 'np.' && type === 'function');
    assert.equal(modules.length, links / 2);
    assert.equal(typeOf('%%symact\nf(x) = torch.nn.functional.silu(x)', 'silu'), 'function');
  });
});

describe('what symnb reads beyond definition lines', () => {
  const unknowns = (source: string): string[] =>
    tokenizeSymact(source)
      .filter(t => t.type === 'unknown' || t.type === 'invalid')
      .map(t => source.slice(t.from, t.to));

  it('reads a cell of Python functions', () => {
    const cell =
      '%%symact\n@torch.jit.script\ndef swish(x, beta=1.0, *, a=learnable(0.2)):\n' +
      '    """Swish."""\n    return x * torch.sigmoid(beta * x) + a\n';
    assert.deepEqual(unknowns(cell), []);
    assertWellFormed(cell, tokenizeSymact(cell));
    assert.equal(typeOf(cell, 'swish'), 'definition');
    assert.equal(typeOf(cell, 'x', 1), 'variable');
    assert.equal(typeOf(cell, 'beta', 1), 'constant');
    assert.equal(typeOf(cell, 'learnable'), 'function');
    // a name the function does not declare is still flagged
    assert.deepEqual(unknowns('%%symact\ndef f(x):\n    return x * zeta\n'), ['zeta']);
  });
  it('reads local assignments in a pasted function', () => {
    const cell =
      '%%symact\ndef sw(x, beta=1.0):\n    gate = torch.sigmoid(beta * x)\n' +
      '    y: float = x * gate\n    y += 0.1 * x\n    return y\n';
    assert.deepEqual(unknowns(cell), []);
    assertWellFormed(cell, tokenizeSymact(cell));
    assert.equal(typeOf(cell, 'gate'), 'variable');
    assert.equal(typeOf(cell, 'beta', 1), 'constant');
    // an undeclared name on the right of an assignment is still flagged
    assert.deepEqual(unknowns('%%symact\ndef f(x):\n    y = x * zeta\n    return y\n'), [
      'zeta'
    ]);
  });
  it('reads tensor methods, arithmetic functions and layer objects', () => {
    const cell =
      '%%symact\nf(x) = x.sigmoid() * x.mul(2).clamp(min=0) + torch.mul(x, x)' +
      ' + nn.LeakyReLU(0.2)(x) + x.where(x > 0, 0.1 * x)\n';
    assert.deepEqual(unknowns(cell), []);
    assertWellFormed(cell, tokenizeSymact(cell));
  });
  it('reads function names spelled with other capitals or underscores', () => {
    const cell = '%%symact\nf(x) = ReLU(x) + GELU(x) + hard_swish(x) + hswish(x)\n';
    assert.deepEqual(unknowns(cell), []);
    assert.deepEqual(unknowns('%%symact\nf(x) = Relux(x)\n'), ['Relux']);
  });
  it('reads bars as an absolute value', () => {
    const cell = '%%symact\nsoftsign2(x) = x/(1 + |x|)\n';
    assert.deepEqual(unknowns(cell), []);
  });
  it('reads a cell of a module class', () => {
    const cell =
      '%%symact\nclass PSwish(nn.Module):\n    def __init__(self, beta=1.5):\n' +
      '        super().__init__()\n        self.beta = nn.Parameter(torch.tensor(beta))\n\n' +
      '    def forward(self, x):\n        return x * torch.sigmoid(self.beta * x)\n';
    assert.deepEqual(unknowns(cell), []);
    assertWellFormed(cell, tokenizeSymact(cell));
    assert.equal(typeOf(cell, 'PSwish'), 'definition');
    assert.equal(typeOf(cell, 'class'), 'operator');
    // __init__'s Python is not coloured; the forward's return is read
    assert.equal(typeOf(cell, 'super'), undefined);
    assert.equal(typeOf(cell, 'x', 1), 'variable');
    // a name the forward does not have is still flagged, after the class too
    const bad =
      '%%symact\nclass P(nn.Module):\n    def forward(self, x):\n        return x * zeta\n' +
      'def g(x):\n    return x * delta\n';
    assert.deepEqual(unknowns(bad), ['zeta', 'delta']);
  });
  it('reads LaTeX, self.beta and a batch mean', () => {
    const latex = '%%symact\nsw(x; beta=1.0) = x \\cdot \\sigma(\\beta x)';
    assert.deepEqual(unknowns(latex), []);
    assert.equal(typeOf(latex, '\\beta'), 'constant');
    const cases =
      '%%symact\nelu2(x; alpha=1.0) = \\begin{cases} x & x > 0 \\\\ ' +
      '\\alpha (e^x - 1) & \\text{otherwise} \\end{cases}';
    assert.deepEqual(unknowns(cases), []);
    assert.equal(typeOf(cases, '\\begin{cases}'), 'function');
    assert.deepEqual(unknowns('%%symact\nsw(x; beta=1.0) = x*sigmoid(self.beta*x)'), []);
    assert.deepEqual(
      unknowns('%%symact --loss\nl(y_pred, y_true) = torch.mean((y_pred - y_true)**2)'),
      []
    );
  });
});
