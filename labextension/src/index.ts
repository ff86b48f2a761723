/**
 * The orkas_nb JupyterLab extension: registers the run and plan views with the widget
 * manager, and answers the kernel's handshake so it knows to use them.
 */
import { IJupyterWidgetRegistry } from '@jupyter-widgets/base';
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';

import { answerProbes } from './handshake';
import { PlanModel, PlanView } from './plan';
import { MODULE_NAME, MODULE_VERSION } from './protocol';
import { setRenderMime } from './rendermime';
import { RunModel, RunView } from './run';

const widgets: JupyterFrontEndPlugin<void> = {
  id: 'orkas-nb:widgets',
  description: 'Live run view and plan view for orkas_nb agents.',
  autoStart: true,
  requires: [IJupyterWidgetRegistry, IRenderMimeRegistry],
  optional: [INotebookTracker],
  activate: (
    _app: JupyterFrontEnd,
    registry: IJupyterWidgetRegistry,
    rendermime: IRenderMimeRegistry,
    tracker: INotebookTracker | null
  ) => {
    setRenderMime(rendermime);
    registry.registerWidget({
      name: MODULE_NAME,
      version: MODULE_VERSION,
      exports: { RunModel, RunView, PlanModel, PlanView }
    });
    if (tracker) {
      answerProbes(tracker);
    }
  }
};

export default [widgets];
