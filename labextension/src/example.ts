/**
 * The cell that "symnb: Insert activation cell" inserts.
 */
export const EXAMPLE_CELL = [
  '%%symact --range -4:4',
  '# One definition per line: name(variable; constant=default) = formula',
  'swish(x; beta=1.0) = x*sigmoid(beta*x)'
].join('\n');
