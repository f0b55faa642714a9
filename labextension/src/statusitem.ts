/**
 * The status-bar item and its model.
 */
import { NotebookActions, INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { Kernel, KernelMessage } from '@jupyterlab/services';
import { ISignal, Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';

import {
  IStatusPayload,
  IUserExpressionResult,
  STATUS_EXPRESSION,
  STATUS_EXPRESSION_KEY,
  formatStatus,
  formatTooltip,
  parseStatusResult
} from './status';

/** Wait this long after an execution before asking (coalesces runs). */
const DEBOUNCE_MS = 300;

/**
 * Asks the current notebook's kernel for symnb's status after each
 * execution, with a silent `execute_request` whose `user_expressions`
 * evaluate `symnb.notebook.labstatus.status_json()` when symnb is loaded.
 */
export class KernelStatusModel {
  constructor(tracker: INotebookTracker) {
    this._tracker = tracker;
    tracker.currentChanged.connect(this._onCurrentChanged, this);
    NotebookActions.executed.connect(this._onExecuted, this);
    this._onCurrentChanged();
  }

  /** The last payload for the current kernel; null hides the item. */
  get payload(): IStatusPayload | null {
    return this._payload;
  }

  /** Emitted whenever `payload` may have changed. */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /**
   * Ask the current kernel now.
   */
  async refresh(): Promise<void> {
    const panel = this._tracker.currentWidget;
    const kernel = panel?.sessionContext.session?.kernel ?? null;
    if (!kernel) {
      this._set(null);
      return;
    }
    const generation = ++this._generation;
    try {
      const payload = await queryKernel(kernel);
      // `undefined`: the request was aborted (a cell before it failed); keep
      // what is shown until the next execution asks again.
      if (generation === this._generation && payload !== undefined) {
        this._set(payload);
      }
    } catch {
      if (generation === this._generation) {
        this._set(null);
      }
    }
  }

  private _schedule(): void {
    if (this._timer !== null) {
      clearTimeout(this._timer);
    }
    this._timer = setTimeout(() => {
      this._timer = null;
      void this.refresh();
    }, DEBOUNCE_MS);
  }

  private _onExecuted(_: unknown, args: { notebook: unknown }): void {
    if (this._tracker.currentWidget?.content === args.notebook) {
      this._schedule();
    }
  }

  private _onCurrentChanged(): void {
    const panel = this._tracker.currentWidget;
    if (this._panel !== panel) {
      if (this._panel) {
        this._panel.sessionContext.kernelChanged.disconnect(this._onKernelChanged, this);
        this._panel.sessionContext.statusChanged.disconnect(this._onStatus, this);
      }
      this._panel = panel;
      if (panel) {
        panel.sessionContext.kernelChanged.connect(this._onKernelChanged, this);
        panel.sessionContext.statusChanged.connect(this._onStatus, this);
      }
    }
    this._generation++;
    this._set(null);
    if (panel) {
      panel.sessionContext.ready
        .then(() => {
          if (this._tracker.currentWidget === panel) {
            this._schedule();
          }
        })
        .catch(() => undefined);
    }
  }

  private _onKernelChanged(): void {
    this._generation++;
    this._set(null);
    this._schedule();
  }

  private _onStatus(_: unknown, status: Kernel.Status): void {
    if (status === 'restarting' || status === 'autorestarting' || status === 'dead') {
      this._generation++;
      this._set(null);
    }
  }

  private _set(payload: IStatusPayload | null): void {
    const before = JSON.stringify(this._payload);
    this._payload = payload;
    if (JSON.stringify(payload) !== before) {
      this._changed.emit();
    }
  }

  private _tracker: INotebookTracker;
  private _panel: NotebookPanel | null = null;
  private _payload: IStatusPayload | null = null;
  private _changed = new Signal<this, void>(this);
  private _generation = 0;
  private _timer: ReturnType<typeof setTimeout> | null = null;
}

/**
 * One silent request; resolves to the payload, null (hide) or undefined (the
 * kernel aborted the request: no news).
 */
async function queryKernel(
  kernel: Kernel.IKernelConnection
): Promise<IStatusPayload | null | undefined> {
  const future = kernel.requestExecute(
    {
      code: '',
      silent: true,
      store_history: false,
      user_expressions: { [STATUS_EXPRESSION_KEY]: STATUS_EXPRESSION },
      allow_stdin: false,
      stop_on_error: false
    },
    true
  );
  const reply = (await future.done) as KernelMessage.IExecuteReplyMsg;
  const content = reply.content as KernelMessage.IExecuteReply & {
    user_expressions?: Record<string, IUserExpressionResult>;
  };
  if ((content.status as string) === 'aborted') {
    return undefined;
  }
  if (content.status !== 'ok') {
    return null;
  }
  return parseStatusResult(content.user_expressions?.[STATUS_EXPRESSION_KEY]);
}

/**
 * The widget in the status bar: "symnb: cpp · cpu".
 */
export class SymnbStatusItem extends Widget {
  constructor(model: KernelStatusModel, onClick: () => void) {
    super();
    this.addClass('symnb-StatusItem');
    this.addClass('jp-mod-highlighted');
    this._model = model;
    this.node.addEventListener('click', onClick);
    model.changed.connect(this._render, this);
    this._render();
  }

  private _render(): void {
    const payload = this._model.payload;
    if (payload) {
      this.node.textContent = formatStatus(payload);
      this.node.title = formatTooltip(payload) + '\n(click to refresh)';
      this.node.dataset.symnbBackend = payload.backend;
      this.node.dataset.symnbDevice = payload.device;
    } else {
      this.node.textContent = '';
      this.node.title = '';
      delete this.node.dataset.symnbBackend;
      delete this.node.dataset.symnbDevice;
    }
  }

  private _model: KernelStatusModel;
}
