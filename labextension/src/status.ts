/**
 * Pure helpers for the status-bar item: the silent request sent to the
 * kernel and the parsing of its reply. No JupyterLab imports, so they can be
 * unit tested under plain Node.
 *
 * The kernel side is `symnb.notebook.labstatus.status_json()`. The
 * expression only imports it when `symnb` is already loaded in the kernel,
 * so asking never loads symnb by itself; it evaluates to `None` otherwise.
 */

/** Key of the user expression in the execute request. */
export const STATUS_EXPRESSION_KEY = 'symnb_status';

/** The Python expression evaluated (silently) in the kernel. */
export const STATUS_EXPRESSION =
  "__import__('sys').modules.get('symnb') is not None and " +
  "__import__('symnb.notebook.labstatus', fromlist=['status_json']).status_json()";

/**
 * What the kernel reports.
 */
export interface IStatusPayload {
  /** The backend symnb currently uses ("cuda", "cpp", "numpy", "auto", ...). */
  backend: string;
  /** The device, e.g. "cpu" or "cuda:0"; empty while not known ("auto"). */
  device: string;
  /** symnb's version in the kernel, if known. */
  version?: string;
  /** A longer explanation for the tooltip, if any. */
  detail?: string;
}

/**
 * A user-expression result, as in the Jupyter messaging spec.
 */
export interface IUserExpressionResult {
  status?: string;
  data?: Record<string, unknown>;
}

/**
 * Turn the kernel's user-expression result into a payload.
 *
 * @param result `reply.content.user_expressions[STATUS_EXPRESSION_KEY]`
 * @returns The payload, or null when symnb is not loaded, the kernel is not
 *   Python, or anything is malformed (the item is then hidden).
 */
export function parseStatusResult(
  result: IUserExpressionResult | undefined | null
): IStatusPayload | null {
  if (!result || result.status !== 'ok' || !result.data) {
    return null;
  }
  let value: unknown = result.data['application/json'];
  if (value === undefined) {
    const text = result.data['text/plain'];
    if (typeof text !== 'string') {
      return null;
    }
    try {
      value = JSON.parse(text);
    } catch {
      return null; // `False`, `None`, or something else entirely
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return null;
  }
  const object = value as Record<string, unknown>;
  if (object.loaded === false) {
    return null;
  }
  if (typeof object.backend !== 'string' || !object.backend) {
    return null;
  }
  const payload: IStatusPayload = {
    backend: object.backend,
    device: typeof object.device === 'string' && object.device !== 'auto' ? object.device : ''
  };
  if (typeof object.version === 'string') {
    payload.version = object.version;
  }
  if (typeof object.detail === 'string') {
    payload.detail = object.detail;
  }
  return payload;
}

/**
 * The text shown in the status bar.
 */
export function formatStatus(payload: IStatusPayload): string {
  if (!payload.device) {
    return `symnb: ${payload.backend}`;
  }
  return `symnb: ${payload.backend} \u00b7 ${payload.device}`;
}

/**
 * The tooltip of the status-bar item.
 */
export function formatTooltip(payload: IStatusPayload): string {
  const lines = [
    `symnb${payload.version ? ' ' + payload.version : ''} in this kernel`,
    `backend: ${payload.backend}`,
    `device: ${payload.device || 'not chosen yet'}`
  ];
  if (payload.detail) {
    lines.push(payload.detail);
  }
  return lines.join('\n');
}
