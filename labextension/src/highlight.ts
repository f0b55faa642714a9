/**
 * CodeMirror 6 extension that colours `%%symact` cells.
 *
 * JupyterLab 4 has no cell-magic -> language mapping, so the cell keeps its
 * Python mode and this view plugin adds mark decorations on top of it,
 * from the pure tokenizer in `tokenizer.ts`.
 */
import { Extension, Prec, RangeSetBuilder, Text } from '@codemirror/state';
import {
  Decoration,
  DecorationSet,
  EditorView,
  ViewPlugin,
  ViewUpdate
} from '@codemirror/view';

import { definedNames, ISymactToken, isSymactCell, tokenizeSymact } from './tokenizer';

/** Cells longer than this are not decorated (formulas are short). */
const MAX_SOURCE_LENGTH = 100_000;

/** CSS class of a token type. */
export function tokenClass(type: ISymactToken['type']): string {
  return `symnb-tok-${type}`;
}

const markCache = new Map<string, Decoration>();

/**
 * Names defined by the `%%symact` cells decorated so far: a cell may call a
 * definition of another cell once that cell has run, so such a call is not
 * marked as unknown. Bounded, as the mark cache.
 */
const seenDefinitions = new Set<string>();
const MAX_SEEN_DEFINITIONS = 10_000;

function markFor(token: ISymactToken): Decoration {
  const key = `${token.type}\u0000${token.hint ?? ''}`;
  let mark = markCache.get(key);
  if (!mark) {
    const attributes: Record<string, string> = {};
    if (token.hint) {
      attributes.title = token.hint;
    }
    mark = Decoration.mark({ class: tokenClass(token.type), attributes });
    if (markCache.size < 1000) {
      markCache.set(key, mark);
    }
  }
  return mark;
}

const symactLine = Decoration.line({ class: 'symnb-symact-line' });

/**
 * The decorations of a document: none unless it is a `%%symact` cell, else
 * one mark per token and a line class on every line.
 *
 * @param doc The editor's document.
 */
export function symactDecorations(doc: Text): DecorationSet {
  if (doc.length > MAX_SOURCE_LENGTH) {
    return Decoration.none;
  }
  const source = doc.toString();
  if (!isSymactCell(source)) {
    return Decoration.none;
  }
  const builder = new RangeSetBuilder<Decoration>();
  for (const name of definedNames(source)) {
    if (seenDefinitions.size < MAX_SEEN_DEFINITIONS) {
      seenDefinitions.add(name);
    }
  }
  const tokens = tokenizeSymact(source, seenDefinitions);
  // Line decorations must be added in order with the marks: walk lines and
  // tokens together.
  let next = 0;
  for (let n = 1; n <= doc.lines; n++) {
    const line = doc.line(n);
    builder.add(line.from, line.from, symactLine);
    while (next < tokens.length && tokens[next].from <= line.to) {
      const token = tokens[next++];
      if (token.to > token.from) {
        builder.add(token.from, token.to, markFor(token));
      }
    }
  }
  return builder.finish();
}

/**
 * The view plugin; it re-tokenizes the (small) cell on every change.
 */
export const symactHighlighter = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;

    constructor(view: EditorView) {
      this.decorations = symactDecorations(view.state.doc);
    }

    update(update: ViewUpdate): void {
      if (update.docChanged) {
        this.decorations = symactDecorations(update.state.doc);
      }
    }
  },
  { decorations: plugin => plugin.decorations }
);

/**
 * The extension to register in JupyterLab's editor extension registry.
 */
export function symactHighlighting(): Extension {
  // Lowest precedence: our marks wrap the Python highlighting spans instead of
  // being split by them (the CSS then colours the inner spans too).
  return Prec.lowest(symactHighlighter);
}
