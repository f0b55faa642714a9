/**
 * symnb's JupyterLab extension.
 *
 * - `symnb:plugin`: the command "symnb: Insert activation cell", in the
 *   command palette and (through `schema/plugin.json`) the notebook toolbar.
 * - `symnb:highlight`: highlighting of `%%symact` cells.
 * - `symnb:status`: a status-bar item with the kernel's symnb backend and
 *   device, hidden while the kernel has not loaded symnb.
 */
import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import {
  EditorExtensionRegistry,
  IEditorExtensionRegistry
} from '@jupyterlab/codemirror';
import {
  INotebookTracker,
  NotebookActions,
  NotebookPanel
} from '@jupyterlab/notebook';
import { IStatusBar } from '@jupyterlab/statusbar';

import { EXAMPLE_CELL } from './example';
import { symactHighlighting } from './highlight';
import { symactIcon } from './icon';
import { KernelStatusModel, SymnbStatusItem } from './statusitem';

/**
 * Command ids.
 */
export namespace CommandIDs {
  export const insertActivationCell = 'symnb:insert-activation-cell';
  export const refreshStatus = 'symnb:refresh-status';
}

/**
 * Insert a `%%symact` example cell below the active cell of a notebook, or
 * fill the active cell when it is an empty code cell.
 */
export function insertActivationCell(panel: NotebookPanel): void {
  const notebook = panel.content;
  const active = notebook.activeCell;
  const reuse =
    active !== null &&
    active.model.type === 'code' &&
    active.model.sharedModel.getSource().trim() === '';
  if (!reuse) {
    NotebookActions.insertBelow(notebook);
    if (notebook.activeCell && notebook.activeCell.model.type !== 'code') {
      NotebookActions.changeCellType(notebook, 'code');
    }
  }
  const cell = notebook.activeCell;
  if (cell) {
    cell.model.sharedModel.setSource(EXAMPLE_CELL);
    notebook.scrollToItem(notebook.activeCellIndex).catch(() => undefined);
  }
}

const commandPlugin: JupyterFrontEndPlugin<void> = {
  id: 'symnb:plugin',
  description: 'symnb: insert an activation cell (palette and notebook toolbar).',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ICommandPalette],
  /**
   * Add the insert-cell command and its palette entry; the toolbar button
   * comes from this plugin's settings schema.
   *
   * @param app The application.
   * @param tracker The notebook tracker.
   * @param palette The command palette, if any.
   */
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    palette: ICommandPalette | null
  ): void => {
    app.commands.addCommand(CommandIDs.insertActivationCell, {
      label: args =>
        args.toolbar ? '' : 'symnb: Insert activation cell',
      caption: 'Insert a %%symact cell with an example activation',
      icon: symactIcon,
      isEnabled: () => tracker.currentWidget !== null,
      execute: () => {
        const panel = tracker.currentWidget;
        if (panel) {
          insertActivationCell(panel);
        }
      }
    });
    palette?.addItem({
      command: CommandIDs.insertActivationCell,
      category: 'symnb'
    });
  }
};

const highlightPlugin: JupyterFrontEndPlugin<void> = {
  id: 'symnb:highlight',
  description: 'symnb: syntax highlighting of %%symact cells.',
  autoStart: true,
  requires: [IEditorExtensionRegistry],
  /**
   * Register the `%%symact` decorations with every editor; they only act on
   * editors whose text starts with `%%symact`.
   *
   * @param app The application.
   * @param registry The editor extension registry.
   */
  activate: (app: JupyterFrontEnd, registry: IEditorExtensionRegistry): void => {
    registry.addExtension({
      name: 'symnb:symact-highlighting',
      factory: () =>
        EditorExtensionRegistry.createImmutableExtension(symactHighlighting())
    });
  }
};

const statusPlugin: JupyterFrontEndPlugin<void> = {
  id: 'symnb:status',
  description: "symnb: the kernel's symnb backend and device in the status bar.",
  autoStart: true,
  requires: [INotebookTracker],
  optional: [IStatusBar],
  /**
   * Show the current notebook kernel's symnb backend in the status bar.
   *
   * @param app The application.
   * @param tracker The notebook tracker.
   * @param statusBar The status bar, if any.
   */
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    statusBar: IStatusBar | null
  ): void => {
    if (!statusBar) {
      return;
    }
    const model = new KernelStatusModel(tracker);
    const item = new SymnbStatusItem(model, () =>
      app.commands.execute(CommandIDs.refreshStatus)
    );
    app.commands.addCommand(CommandIDs.refreshStatus, {
      label: 'symnb: Refresh kernel status',
      execute: () => model.refresh()
    });
    statusBar.registerStatusItem('symnb:status', {
      item,
      align: 'left',
      rank: 10,
      isActive: () => model.payload !== null,
      activeStateChanged: model.changed
    });
  }
};

export default [commandPlugin, highlightPlugin, statusPlugin];
