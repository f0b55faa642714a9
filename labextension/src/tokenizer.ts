/**
 * A small, pure tokenizer for `%%symact` cells.
 *
 * It knows nothing of CodeMirror or JupyterLab, so that it can be unit
 * tested under plain Node. The editor plugin (`highlight.ts`) turns its
 * tokens into CodeMirror mark decorations.
 *
 * Cell syntax (owned by `symnb.notebook.magics`):
 *
 * ```
 * %%symact [--backend cpp] [--loss] [--range -4:4] [--no-plot] [--code] [--device N]
 * # a comment
 * swish(x; beta=1.0) = x*sigmoid(beta*x)
 * my_mse(y_pred, y_true) = (y_pred - y_true)**2
 * ```
 *
 * In a definition head `name(v1, v2; k1=1.0, k2=2) =` the names before `;`
 * are variables and those after it are constants; both are then recognised
 * in the body of the definition (until the next head).
 */

/**
 * The kinds of token the highlighter distinguishes.
 */
export type SymactTokenType =
  | 'magic' // the `%%symact` itself
  | 'option' // `--backend`, `--range`, ...
  | 'option-value' // `cpp`, `cuda`, ... after an option
  | 'comment' // `# ...` to the end of the line
  | 'definition' // the defined name in `name(x; k=v) =`
  | 'variable' // a declared variable (`x`, `y_pred`, ...)
  | 'constant' // a declared constant (`beta`) or `pi`, `E`
  | 'function' // a known function name (`exp`, `sigmoid`, `gelu`, ...)
  | 'number' // `1`, `0.5`, `1e-3`
  | 'operator' // `+ - * / ** ^ < <= == = & | ~ ...`
  | 'punctuation' // `( ) , ; :`
  | 'string' // `"neuron"` in `learnable(0.1, per="neuron")` (heads only)
  | 'unknown' // a name that is none of the above (probably a typo)
  | 'invalid'; // a character a formula may not contain (look-alikes, quotes)

/**
 * One token: a half-open range `[from, to)` of the cell source.
 */
export interface ISymactToken {
  from: number;
  to: number;
  type: SymactTokenType;
  /** A short explanation, for `unknown` and `invalid` tokens. */
  hint?: string;
}

/**
 * Functions a formula may call: the parser's table
 * (`symnb.formula.functions.ALLOWED_FUNCTIONS`) and the library's named
 * activations and losses. Kept in sync by `tests/labextension`.
 */
export const KNOWN_FUNCTIONS: ReadonlySet<string> = new Set([
  // the library losses, callable in a loss formula (huber(y_pred, y_true, delta=0.5))
  'mse',
  'mae',
  'huber',
  'bce',
  'bce_with_logits',
  'log_cosh',
  'hinge',
  // elementary and special functions
  'exp',
  'log',
  'ln',
  'sqrt',
  'cbrt',
  'sin',
  'cos',
  'tan',
  'asin',
  'acos',
  'atan',
  'sinh',
  'cosh',
  'tanh',
  'asinh',
  'acosh',
  'atanh',
  'erf',
  'erfc',
  'erfcx',
  'lgamma',
  'tgamma',
  'gamma',
  'gammaln',
  'digamma',
  'psi',
  'round',
  'rint',
  'trunc',
  'atan2',
  'arctan2',
  'abs',
  'Abs',
  'sign',
  'max',
  'Max',
  'min',
  'Min',
  'where',
  'Piecewise',
  'Heaviside',
  'heaviside',
  'floor',
  'ceiling',
  'ceil',
  // numerically stable building blocks
  'sigmoid',
  'softplus',
  'logsigmoid',
  'log1p',
  'expm1',
  // NumPy's and PyTorch's spellings, and common extras
  'log10',
  'log2',
  'sech',
  'clip',
  'clamp',
  'arcsin',
  'arccos',
  'arctan',
  'arcsinh',
  'arccosh',
  'arctanh',
  'sgn',
  // the library's named activations
  'identity',
  'relu',
  'relu6',
  'leaky_relu',
  'elu',
  'selu',
  'celu',
  'gelu',
  'gelu_tanh',
  'silu',
  'swish',
  'mish',
  'softsign',
  'hardtanh',
  'hardsigmoid',
  'hardswish',
  'tanhshrink',
  'softshrink',
  'gaussian',
  'penalized_tanh',
  'step',
  // other libraries' names for the same functions (symnb.formula.spellings.BARE)
  'expit',
  'logistic',
  'fabs',
  'Phi',
  'ndtr',
  'log_ndtr',
  'square',
  'power',
  'pow',
  'logaddexp',
  'logaddexp2',
  'hypot',
  'exp2',
  'reciprocal',
  'rsqrt',
  'logit',
  'squareplus',
  'sparse_plus',
  'sparse_sigmoid',
  'hardshrink',
  'xlogy',
  'xlog1py'
]);

/**
 * Module paths a formula may put before a function (`np.tanh`, `F.silu`):
 * `symnb.formula.spellings.MODULES`. Kept in sync by `tests/labextension`.
 */
export const MODULES: ReadonlySet<string> = new Set([
  'np',
  'numpy',
  'math',
  'torch',
  'F',
  'nn.functional',
  'torch.nn.functional',
  'torch.special',
  'jnp',
  'jax.numpy',
  'jax.nn',
  'jax.scipy.special',
  'tf',
  'tf.math',
  'tf.nn',
  'scipy.special',
  'special',
  'sp',
  'sympy',
  'tf.keras.activations',
  'keras.activations',
  'keras.ops',
  'keras.losses',
  'tf.keras.losses',
  'optax',
  'scipy.stats.norm',
  'stats.norm',
  'norm',
  'K',
  'keras.backend',
  'tf.keras.backend',
  'torchvision.ops',
  'jax.lax'
]);

/**
 * Names known only after a module path (`np.square`, `jax.nn.log_sigmoid`):
 * the keys of `symnb.formula.spellings`' tables. Kept in sync by
 * `tests/labextension`.
 */
/**
 * PyTorch's activation layer classes symnb reads as functions (`nn.ReLU6()(x)`,
 * a submodule `self.act = nn.LeakyReLU(0.2)`; symnb/formula/layer_objects.py).
 */
export const LAYER_CLASSES: ReadonlySet<string> = new Set([
  'ReLU',
  'ReLU6',
  'LeakyReLU',
  'ELU',
  'CELU',
  'SELU',
  'GELU',
  'SiLU',
  'Mish',
  'Softplus',
  'Softsign',
  'Tanhshrink',
  'Softshrink',
  'Hardshrink',
  'Hardtanh',
  'Hardsigmoid',
  'Hardswish',
  'LogSigmoid',
  'Threshold',
  'Sigmoid',
  'Tanh',
  'Identity'
]);

export const MODULE_FUNCTIONS: ReadonlySet<string> = new Set([
  // arithmetic as functions and tensor methods (torch.mul(a, b), x.add(1, alpha=2))
  'frac',
  'fix',
  'around',
  'multiply',
  'mul',
  'divide',
  'div',
  'true_divide',
  'add',
  'subtract',
  'sub',
  'neg',
  // a loss's batch mean (torch.mean((y_pred - y_true)**2): its per-element formula)
  'mean',
  'reduce_mean',
  'entr',
  'rel_entr',
  'clamp_min',
  'clamp_max',
  'positive',
  'negative',
  'float_power',
  'copysign',
  'keras_relu',
  'silu_beta',
  'exprel',
  'erfcx',
  'linear',
  'tanh_shrink',
  'soft_shrink',
  'hard_shrink',
  'exponential',
  'sigmoid_focal_loss',
  'weighted_cross_entropy_with_logits',
  'maximum',
  'minimum',
  'absolute',
  'log_sigmoid',
  'log_expit',
  'soft_sign',
  'hard_tanh',
  'hard_sigmoid',
  'hard_swish',
  'hard_silu',
  'clip_by_value',
  'sinc',
  'cdf',
  'logcdf',
  'fmax',
  'fmin',
  'threshold',
  'rrelu',
  'mse_loss',
  'l1_loss',
  'huber_loss',
  'binary_cross_entropy',
  'binary_cross_entropy_with_logits',
  'mean_squared_error',
  'mse',
  'MSE',
  'mean_absolute_error',
  'mae',
  'MAE',
  'huber',
  'log_cosh',
  'logcosh',
  'sigmoid_cross_entropy_with_logits',
  'sigmoid_binary_cross_entropy',
  'squared_error',
  'huber_loss',
  'hinge_loss',
  'KLD',
  'MAPE',
  'MSLE',
  'binary_crossentropy',
  'hinge_embedding_loss',
  'kl_div',
  'kl_divergence',
  'kld',
  'l2_loss',
  'mape',
  'mean_absolute_percentage_error',
  'mean_squared_logarithmic_error',
  'msle',
  'poisson',
  'poisson_nll_loss',
  'smooth_l1_loss',
  'soft_margin_loss'
]);

/**
 * Named mathematical constants a formula may use.
 */
/**
 * Python keywords a formula may use: the conditional expression `a if c else b`.
 */
const FORMULA_KEYWORDS: ReadonlySet<string> = new Set(['if', 'else']);

export const KNOWN_CONSTANTS: ReadonlySet<string> = new Set(['pi', 'E', 'e']);

/**
 * Python's literal names: a keyword argument's value (`inplace=True`), a bound
 * left open (`np.clip(x, 0, None)`), `Piecewise`'s last condition. Highlighted as
 * literals, not as unknown names; the parser says where they are not allowed.
 */
const LITERAL_NAMES: ReadonlySet<string> = new Set(['True', 'False', 'None']);

/**
 * Characters people paste from papers, with the ASCII to type instead.
 */
const LOOKALIKES: Record<string, string> = {
  '\u2212': '-', // minus sign
  '\u2013': '-', // en dash
  '\u2014': '-', // em dash
  '\u00d7': '*', // multiplication sign
  '\u22c5': '*', // dot operator
  '\u00b7': '*', // middle dot
  '\u00f7': '/', // division sign
  '\u00b2': '**2', // superscript two
  '\u00b3': '**3', // superscript three
  '\u2264': '<=',
  '\u2265': '>=',
  '\u03c0': 'pi',
  '\u03b2': 'beta',
  '\u03b1': 'alpha'
};

const MAGIC_RE = /^(\s*)(%%symact)(?![\w-])/;
const HEAD_START_RE = /^(\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*)\(/;
/** A line of a cell of Python functions: its indentation and first word. */
const PYTHON_LINE_RE = /^(\s*)(?:(def|return)(?![A-Za-z0-9_])|@|"""|'''|r""")/;
/** A local assignment in a pasted function: `gate = ...`, `y: T = ...`, `y += ...`. */
const LOCAL_ASSIGN_RE = /^(\s+)([A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=]*)?(?:\*\*|\/\/|[-+*/%@&|^])?=(?!=)/;
/** A pasted module class: `class Swish(nn.Module):` (its forward is the formula). */
const CLASS_RE = /^(\s*)class\s+([A-Za-z_][A-Za-z0-9_]*)/;
/** The method of a pasted class that symnb reads (PyTorch, Keras, plain). */
const FORWARD_DEF_RE = /^\s*def\s+(?:forward|call|__call__)\s*\(/;
const DEF_RE = /^def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(/;
/** A LaTeX command (`\frac`, `\beta`) in a formula pasted from a paper. */
const LATEX_COMMAND_RE = /\\[A-Za-z]+/y;
/** LaTeX commands whose `{...}` group is part of them (`\begin{cases}`). */
const LATEX_WITH_GROUP: ReadonlySet<string> = new Set([
  'begin',
  'end',
  'text',
  'textrm',
  'mathrm',
  'mathit',
  'operatorname',
  'hat',
  'widehat'
]);
/** LaTeX names that are another constant's name in symnb (`\lambda`: lambd). */
const LATEX_NAMES: Record<string, string> = { lambda: 'lambd', varepsilon: 'epsilon' };
const HEAD_END_RE = /\s*=(?!=)/y;
const STRING_RE = /"[^"\n]*"?|'[^'\n]*'?/y;
const IDENT_RE = /[A-Za-z_][A-Za-z0-9_]*/y;
/**
 * A dotted name of at most one part more than the longest module path
 * (`torch.nn.functional.silu`): bounded, so that a long chain such as
 * `np.np.np...` is read in linear time (unbounded, each position matched the whole
 * chain and joined its prefixes: 2.4 s for 1000 links, a frozen browser for more).
 */
const MODULE_PARTS = Math.max(...[...MODULES].map(m => m.split('.').length));
const DOTTED_RE = new RegExp(
  `[A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*){1,${MODULE_PARTS}}`,
  'y'
);
const NUMBER_RE = /(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y;
const OPERATOR_RE = /\*\*|<=|>=|==|!=|[-+*/^%<>=&|~!]/y;
const PUNCTUATION = '(),;:[]';
const OPTION_RE = /--[A-Za-z][\w-]*/y;

/**
 * Whether a cell source is a `%%symact` cell.
 *
 * @param source The whole cell source.
 */
export function isSymactCell(source: string): boolean {
  return MAGIC_RE.test(source);
}

/**
 * The names a definition head declares.
 */
interface IScope {
  variables: Set<string>;
  constants: Set<string>;
  /** Inside a pasted Python function, whose local assignments symnb puts in. */
  code?: boolean;
}

/**
 * Tokenize a `%%symact` cell.
 *
 * @param source The whole cell source.
 * @returns Non-overlapping tokens in increasing order (whitespace and
 *   anything not worth colouring are left out); an empty list when the
 *   source is not a `%%symact` cell.
 */
export function tokenizeSymact(
  source: string,
  elsewhere: Iterable<string> = []
): ISymactToken[] {
  const tokens: ISymactToken[] = [];
  if (!isSymactCell(source)) {
    return tokens;
  }
  // A formula may call the cell's other definitions, above or below it (symnb
  // builds them in call order), and those of cells run before.
  callable = new Set([...definedNames(source), ...elsewhere]);
  try {
    tokenizeCell(source, tokens);
  } finally {
    callable = new Set();
  }
  return tokens;
}

/** The names the cell being tokenized defines, and those defined elsewhere. */
let callable: ReadonlySet<string> = new Set();

/**
 * The names a `%%symact` cell defines: formula heads (`swish(x; beta=1) =`),
 * pasted functions (`def swish(x):`) and classes (`class PSwish(nn.Module):`).
 *
 * @param source The whole cell source.
 * @returns The names, in order; none when the source is not a `%%symact` cell.
 */
export function definedNames(source: string): string[] {
  if (!isSymactCell(source)) {
    return [];
  }
  const names: string[] = [];
  for (const line of source.split('\n').slice(1)) {
    const found =
      CLASS_RE.exec(line)?.[2] ??
      DEF_RE.exec(line)?.[1] ??
      (PYTHON_LINE_RE.test(line) ? undefined : findHead(line)?.name);
    if (found) {
      names.push(found);
    }
  }
  return names;
}

/** Tokenize the lines of a `%%symact` cell into `tokens`. */
function tokenizeCell(source: string, tokens: ISymactToken[]): void {
  // Before any head, `x` is the variable (as in `%%symact` one-liners).
  let scope: IScope = { variables: new Set(['x']), constants: new Set() };
  let lineStart = 0;
  let first = true;
  // in a pasted class: whether the lines are its forward's (read) or other
  // methods' and statements (``__init__``: Python that symnb only reads for its
  // constants, so it is left uncoloured)
  let inClass = false;
  let inForward = false;
  let classConstants: string[] = [];
  while (lineStart <= source.length) {
    let lineEnd = source.indexOf('\n', lineStart);
    if (lineEnd < 0) {
      lineEnd = source.length;
    }
    const line = source.slice(lineStart, lineEnd);
    const classHead = first ? null : CLASS_RE.exec(line);
    if (first) {
      tokenizeMagicLine(line, lineStart, tokens);
      first = false;
    } else if (classHead) {
      const at = lineStart + classHead[1].length;
      tokens.push({ from: at, to: at + 5, type: 'operator' });
      const nameFrom = lineStart + classHead[0].length - classHead[2].length;
      tokens.push({ from: nameFrom, to: nameFrom + classHead[2].length, type: 'definition' });
      inClass = true;
      inForward = false;
      classConstants = classAttributes(source.slice(lineEnd + 1));
    } else if (inClass && /^\S/.test(line)) {
      inClass = false; // a top-level line after the class
      scope = tokenizeFormulaLine(line, lineStart, scope, tokens);
    } else if (inClass) {
      if (/^\s*def\b/.test(line)) {
        inForward = FORWARD_DEF_RE.test(line);
      }
      if (inForward) {
        scope = tokenizeFormulaLine(line, lineStart, scope, tokens);
        classConstants.forEach(name => scope.constants.add(name));
      }
    } else {
      scope = tokenizeFormulaLine(line, lineStart, scope, tokens);
    }
    lineStart = lineEnd + 1;
  }
}

/**
 * The attributes a pasted class's body assigns (`self.beta = ...`,
 * `self.register_buffer("gain", ...)`): the constants its forward reads as
 * `self.name` (symnb/formula/code_constants.py reads their values).
 */
function classAttributes(body: string): string[] {
  const end = body.search(/^\S/m);
  const text = end < 0 ? body : body.slice(0, end);
  const names: string[] = [];
  for (const m of text.matchAll(/self\.([A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=\n]*)?=(?!=)/g)) {
    names.push(m[1]);
  }
  for (const m of text.matchAll(/register_buffer\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["']/g)) {
    names.push(m[1]);
  }
  return names;
}

/**
 * Tokenize the first line: `%%symact --option value ...`.
 */
function tokenizeMagicLine(
  line: string,
  offset: number,
  tokens: ISymactToken[]
): void {
  const match = MAGIC_RE.exec(line);
  if (!match) {
    return;
  }
  const start = match[1].length;
  tokens.push({
    from: offset + start,
    to: offset + start + match[2].length,
    type: 'magic'
  });
  let pos = start + match[2].length;
  while (pos < line.length) {
    const ch = line[pos];
    if (ch === ' ' || ch === '\t' || ch === '\r') {
      pos++;
      continue;
    }
    if (ch === '#') {
      tokens.push({ from: offset + pos, to: offset + line.length, type: 'comment' });
      return;
    }
    const option = matchAt(OPTION_RE, line, pos);
    if (option) {
      tokens.push({ from: offset + pos, to: offset + pos + option.length, type: 'option' });
      pos += option.length;
      continue;
    }
    // A signed number, as in `--range -4:4`.
    const signed = ch === '-' || ch === '+' ? 1 : 0;
    const number = matchAt(NUMBER_RE, line, pos + signed);
    if (number) {
      const end = pos + signed + number.length;
      tokens.push({ from: offset + pos, to: offset + end, type: 'number' });
      pos = end;
      continue;
    }
    const word = /[^\s#]+/y;
    word.lastIndex = pos;
    const value = word.exec(line);
    if (value) {
      // `-4:4` has a ':' inside; let a plain ':' be punctuation.
      const text = value[0];
      const colon = text.indexOf(':');
      const end = pos + (colon === 0 ? 1 : colon > 0 ? colon : text.length);
      tokens.push({
        from: offset + pos,
        to: offset + end,
        type: colon === 0 ? 'punctuation' : 'option-value'
      });
      pos = end;
      continue;
    }
    pos++;
  }
}

/**
 * Tokenize one formula line; returns the scope for the following lines.
 */
function tokenizeFormulaLine(
  line: string,
  offset: number,
  scope: IScope,
  tokens: ISymactToken[]
): IScope {
  let pos = 0;
  const local = scope.code ? LOCAL_ASSIGN_RE.exec(line) : null;
  if (local && !PYTHON_LINE_RE.test(line)) {
    // `gate = torch.sigmoid(beta * x)`: an intermediate value, put into the return
    const from = offset + local[1].length;
    tokens.push({ from, to: from + local[2].length, type: 'variable' });
    scope.variables.add(local[2]);
    tokenizeExpression(line, local[0].length, offset, scope, tokens);
    return scope;
  }
  const code = PYTHON_LINE_RE.exec(line);
  if (code) {
    // a cell of Python functions: `def swish(x, beta=1.0):`, `return ...`,
    // decorators and docstrings (read by symnb; see symnb/notebook/syntax.py)
    if (code[2] === 'def') {
      return tokenizeDef(line, offset, code[1].length, tokens) ?? scope;
    }
    if (code[2] === 'return') {
      const at = code[1].length;
      tokens.push({ from: offset + at, to: offset + at + 6, type: 'operator' });
      pos = at + 6;
    } else {
      return scope; // a decorator or a docstring line
    }
  }
  const head = code ? null : findHead(line);
  if (head) {
    const { nameFrom, name, open, close, equals } = head;
    tokens.push({
      from: offset + nameFrom,
      to: offset + nameFrom + name.length,
      type: 'definition'
    });
    tokens.push({ from: offset + open, to: offset + open + 1, type: 'punctuation' });
    scope = tokenizeParameters(line.slice(open + 1, close), offset + open + 1, tokens);
    tokens.push({ from: offset + close, to: offset + close + 1, type: 'punctuation' });
    tokens.push({ from: offset + equals, to: offset + equals + 1, type: 'operator' });
    pos = equals + 1;
  }
  tokenizeExpression(line, pos, offset, scope, tokens);
  return scope;
}

/**
 * A Python function head `def name(x, beta=1.0, *, a=learnable(0.2)):`: the
 * name is the definition, parameters without a default are variables, those
 * with one constants; the scope for its `return` line, or null if malformed.
 */
function tokenizeDef(
  line: string,
  offset: number,
  at: number,
  tokens: ISymactToken[]
): IScope | null {
  const match = DEF_RE.exec(line.slice(at));
  if (!match) {
    return null;
  }
  tokens.push({ from: offset + at, to: offset + at + 3, type: 'operator' });
  const nameFrom = at + match[0].indexOf(match[1], 3);
  tokens.push({ from: offset + nameFrom, to: offset + nameFrom + match[1].length, type: 'definition' });
  const scope: IScope = { variables: new Set(), constants: new Set(), code: true };
  let pos = line.indexOf('(', nameFrom) + 1;
  let depth = 0;
  let inDefault = false;
  while (pos < line.length) {
    const ch = line[pos];
    if (ch === ')' && depth === 0) {
      break;
    }
    if (ch === '(' || ch === ')') {
      depth += ch === '(' ? 1 : -1;
    } else if (ch === ',' && depth === 0) {
      inDefault = false;
    } else if (ch === '=' && depth === 0) {
      inDefault = true;
    }
    const ident = matchAt(IDENT_RE, line, pos);
    if (ident) {
      const from = offset + pos;
      if (inDefault || ident === 'self') {
        if (ident === 'learnable') {
          tokens.push({ from, to: from + ident.length, type: 'function' });
        }
      } else {
        const rest = line.slice(pos + ident.length);
        const constant = /^\s*(:[^,=)]*)?=/.test(rest);
        (constant ? scope.constants : scope.variables).add(ident);
        tokens.push({ from, to: from + ident.length, type: constant ? 'constant' : 'variable' });
      }
      pos += ident.length;
      continue;
    }
    pos = tokenizeSimple(line, pos, offset, tokens);
  }
  return scope;
}

/**
 * Where a definition head `name( ... ) =` is in a line, or null.
 *
 * The parentheses may nest (`a=learnable(0.25)`) and hold strings
 * (`per="neuron"`); an `=` must follow the closing one (`==` does not count).
 */
function findHead(
  line: string
): { nameFrom: number; name: string; open: number; close: number; equals: number } | null {
  const start = HEAD_START_RE.exec(line);
  if (!start) {
    return null;
  }
  const nameFrom = start[1].length;
  const name = start[2];
  const open = start[0].length - 1;
  let depth = 0;
  let pos = open;
  while (pos < line.length) {
    const ch = line[pos];
    if (ch === '"' || ch === "'") {
      pos += matchAt(STRING_RE, line, pos)?.length ?? 1;
      continue;
    }
    if (ch === '#') {
      return null;
    }
    if (ch === '(') {
      depth++;
    } else if (ch === ')') {
      depth--;
      if (depth === 0) {
        const gap = matchAt(HEAD_END_RE, line, pos + 1);
        if (gap === null) {
          return null;
        }
        return { nameFrom, name, open, close: pos, equals: pos + gap.length };
      }
    }
    pos++;
  }
  return null;
}

/**
 * Tokenize the inside of a head's parentheses: `x, y; k=1.0, m=learnable(2)`.
 *
 * At the top level, names before `;` are variables and names after it are
 * constants; inside a constant's value, `learnable` is a function and other
 * names (`per`) are options.
 */
function tokenizeParameters(
  text: string,
  offset: number,
  tokens: ISymactToken[]
): IScope {
  const scope: IScope = { variables: new Set(), constants: new Set() };
  let inConstants = false;
  let inValue = false; // after `k=`, until the next top-level `,`
  let depth = 0;
  let pos = 0;
  while (pos < text.length) {
    const ch = text[pos];
    if (ch === ';' && depth === 0) {
      inConstants = true;
      tokens.push({ from: offset + pos, to: offset + pos + 1, type: 'punctuation' });
      pos++;
      continue;
    }
    if (ch === ',' && depth === 0) {
      inValue = false;
    } else if (ch === '=' && depth === 0 && inConstants) {
      inValue = true;
    }
    if (ch === '(' || ch === ')') {
      depth += ch === '(' ? 1 : -1;
      tokens.push({ from: offset + pos, to: offset + pos + 1, type: 'punctuation' });
      pos++;
      continue;
    }
    if ((ch === '"' || ch === "'") && depth > 0) {
      pos = tokenizeString(text, pos, offset, tokens);
      continue;
    }
    const ident = matchAt(IDENT_RE, text, pos);
    if (ident) {
      let type: SymactTokenType;
      if (depth > 0 || inValue) {
        if (ident === 'learnable') {
          type = 'function';
        } else if (depth > 0) {
          type = 'option';
        } else {
          type = 'unknown';
        }
      } else {
        type = inConstants ? 'constant' : 'variable';
        (inConstants ? scope.constants : scope.variables).add(ident);
      }
      tokens.push({ from: offset + pos, to: offset + pos + ident.length, type });
      pos += ident.length;
      continue;
    }
    pos = tokenizeSimple(text, pos, offset, tokens);
  }
  return scope;
}

/**
 * Tokenize an expression (or the rest of a line) from `pos`.
 */
function tokenizeExpression(
  line: string,
  pos: number,
  offset: number,
  scope: IScope,
  tokens: ISymactToken[]
): void {
  let depth = 0; // parentheses open on this line
  const latexLine = /\\[A-Za-z]/.test(line);
  while (pos < line.length) {
    const ch = line[pos];
    if (ch === '#') {
      tokens.push({ from: offset + pos, to: offset + line.length, type: 'comment' });
      return;
    }
    const module = matchModule(line, pos);
    if (module) {
      // `np.` is a function token; the name after it is known if symnb maps it
      tokens.push({ from: offset + pos, to: offset + pos + module.length, type: 'function' });
      pos += module.length;
      const name = matchAt(IDENT_RE, line, pos);
      if (name) {
        const known = KNOWN_FUNCTIONS.has(name) || MODULE_FUNCTIONS.has(name);
        tokens.push(
          known
            ? { from: offset + pos, to: offset + pos + name.length, type: 'function' }
            : classifyName(name, offset + pos, { variables: new Set(), constants: new Set() })
        );
        pos += name.length;
      }
      continue;
    }
    if ((ch === '"' || ch === "'") && depth > 0) {
      // `gelu(x, approximate='tanh')`: a keyword argument's value
      pos = tokenizeString(line, pos, offset, tokens);
      continue;
    }
    const latex = matchAt(LATEX_COMMAND_RE, line, pos);
    if (latex) {
      // LaTeX from a paper (`x \cdot \sigma(\beta x)`): read by symnb; `\beta` is
      // the constant beta, other commands are functions or operators
      const command = latex.slice(1);
      const name = LATEX_NAMES[command] ?? command;
      let length = latex.length;
      const close = line.indexOf('}', pos + length);
      if (LATEX_WITH_GROUP.has(command) && line[pos + length] === '{' && close > 0) {
        length = close + 1 - pos; // `\begin{cases}`, `\text{if}`, `\hat{y}`: one token
      }
      const from = offset + pos;
      const to = from + length;
      if (scope.constants.has(name) || scope.variables.has(name)) {
        tokens.push({ from, to, type: scope.constants.has(name) ? 'constant' : 'variable' });
      } else {
        tokens.push({ from, to, type: command.endsWith('hat') ? 'variable' : 'function' });
      }
      pos += length;
      continue;
    }
    if (latexLine && (ch === '\\' || ch === '{' || ch === '}' || ch === '&')) {
      pos++; // LaTeX spacing (`\,`), groups, a cases row's column
      continue;
    }
    const ident = matchAt(IDENT_RE, line, pos);
    if (ident === 'self' && line[pos + ident.length] === '.') {
      // `self.beta`, pasted from a module's forward: the constant beta
      pos += ident.length + 1;
      continue;
    }
    const method = ident !== null && pos > 0 && line[pos - 1] === '.';
    if (
      ident &&
      ((ident === 'nn' && line[pos + ident.length] === '.') ||
        (method && (MODULE_FUNCTIONS.has(ident) || LAYER_CLASSES.has(ident))) ||
        (LAYER_CLASSES.has(ident) && line[pos + ident.length] === '('))
    ) {
      // `nn.LeakyReLU(0.2)(x)`, `x.mul(2)`: a layer object or a tensor method
      tokens.push({ from: offset + pos, to: offset + pos + ident.length, type: 'function' });
      pos += ident.length;
      continue;
    }
    if (ident) {
      const from = offset + pos;
      const to = from + ident.length;
      if (FORMULA_KEYWORDS.has(ident)) {
        // `x if x > 0 else 0.1*x` reads as where(x > 0, x, 0.1*x)
        tokens.push({ from, to, type: 'operator' });
      } else if (LITERAL_NAMES.has(ident)) {
        tokens.push({ from, to, type: 'number' });
      } else if (depth > 0 && matchAt(HEAD_END_RE, line, pos + ident.length)) {
        // `elu(x, alpha=0.5)`, `torch.clamp(x, min=0)`: a keyword argument is an
        // option name (the parser checks that the function takes it)
        tokens.push({ from, to, type: 'option' });
      } else {
        tokens.push(classifyName(ident, from, scope));
      }
      pos += ident.length;
      continue;
    }
    if (ch === '(' || ch === ')') {
      depth += ch === '(' ? 1 : -1;
    }
    pos = tokenizeSimple(line, pos, offset, tokens);
  }
}

/**
 * A quoted string at `pos` (a keyword argument's value); the position after it.
 */
function tokenizeString(
  text: string,
  pos: number,
  offset: number,
  tokens: ISymactToken[]
): number {
  const literal = matchAt(STRING_RE, text, pos) ?? text[pos];
  tokens.push({ from: offset + pos, to: offset + pos + literal.length, type: 'string' });
  return pos + literal.length;
}

/**
 * The longest module path with its dot (`torch.nn.functional.`) at `pos`, if any.
 */
function matchModule(line: string, pos: number): string | undefined {
  const path = matchAt(DOTTED_RE, line, pos);
  if (!path) {
    return undefined;
  }
  const parts = path.split('.');
  for (let n = parts.length - 1; n >= 1; n--) {
    const prefix = parts.slice(0, n).join('.');
    if (MODULES.has(prefix)) {
      return prefix + '.';
    }
  }
  return undefined;
}

/**
 * Numbers, operators, punctuation and invalid characters; skips the rest.
 *
 * @returns The position after what was consumed.
 */
function tokenizeSimple(
  text: string,
  pos: number,
  offset: number,
  tokens: ISymactToken[]
): number {
  const ch = text[pos];
  // A name glued to a number (`2x`) is a number then a name; a number glued
  // to a name's tail (`x2`) never gets here.
  const number = matchAt(NUMBER_RE, text, pos);
  if (number) {
    tokens.push({ from: offset + pos, to: offset + pos + number.length, type: 'number' });
    return pos + number.length;
  }
  const operator = matchAt(OPERATOR_RE, text, pos);
  if (operator) {
    tokens.push({
      from: offset + pos,
      to: offset + pos + operator.length,
      type: 'operator'
    });
    return pos + operator.length;
  }
  if (PUNCTUATION.includes(ch)) {
    tokens.push({ from: offset + pos, to: offset + pos + 1, type: 'punctuation' });
    return pos + 1;
  }
  if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '.') {
    return pos + 1;
  }
  // Everything else cannot appear in a formula; keep surrogate pairs whole.
  const code = text.codePointAt(pos) ?? 0;
  const width = code > 0xffff ? 2 : 1;
  const char = text.slice(pos, pos + width);
  const ascii = LOOKALIKES[char];
  let hint: string;
  if (ascii !== undefined) {
    hint = `'${char}' is not ASCII: type ${ascii} instead`;
  } else if (char === "'" || char === '"') {
    hint = 'strings are not allowed in formulas';
  } else {
    hint = `'${char}' is not allowed in formulas`;
  }
  tokens.push({ from: offset + pos, to: offset + pos + width, type: 'invalid', hint });
  return pos + width;
}

/**
 * Classify a name in an expression.
 */
function classifyName(name: string, from: number, scope: IScope): ISymactToken {
  const to = from + name.length;
  if (scope.constants.has(name)) {
    return { from, to, type: 'constant' };
  }
  if (scope.variables.has(name)) {
    return { from, to, type: 'variable' };
  }
  if (KNOWN_FUNCTIONS.has(name) || foldedFunction(name) || callable.has(name)) {
    return { from, to, type: 'function' };
  }
  if (KNOWN_CONSTANTS.has(name)) {
    return { from, to, type: 'constant' };
  }
  return {
    from,
    to,
    type: 'unknown',
    hint: `'${name}' is not a variable, constant, known function or symact definition`
  };
}

/** Short names of model code for library activations (symnb.formula.spellings). */
const SHORT_NAMES: ReadonlySet<string> = new Set(['hswish', 'hsigmoid', 'lrelu']);

/**
 * Whether `name` spells one known function with other capitals or underscores
 * (`ReLU`, `GELU`, `hard_swish`; symnb.formula.spellings.folded_name).
 */
function foldedFunction(name: string): boolean {
  const key = name.replace(/_/g, '').toLowerCase();
  if (SHORT_NAMES.has(key)) {
    return true;
  }
  let found = 0;
  KNOWN_FUNCTIONS.forEach(f => {
    if (!f.startsWith('_') && f.replace(/_/g, '').toLowerCase() === key) {
      found++;
    }
  });
  return found === 1;
}

/**
 * Match a sticky regular expression at `pos`; the matched text or null.
 */
function matchAt(re: RegExp, text: string, pos: number): string | null {
  re.lastIndex = pos;
  const match = re.exec(text);
  return match ? match[0] : null;
}
