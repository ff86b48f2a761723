/**
 * Answers the kernel's probe (see orkas_nb/notebook/views/lab/handshake.py): the kernel publishes a
 * comm_msg for a comm id no front end knows; every front end drops it silently, and this one
 * answers by opening a comm to the kernel's handshake target, saying which views it draws.
 */
import { ISessionContext } from '@jupyterlab/apputils';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { KernelMessage } from '@jupyterlab/services';

import { HANDSHAKE_TARGET, MODULE_VERSION, PROBE_PREFIX } from './protocol';

export const VIEWS = ['run', 'plan', 'transcript'];

function onIOPub(context: ISessionContext, msg: KernelMessage.IMessage): void {
  if (msg.header.msg_type !== 'comm_msg') {
    return;
  }
  const content = (msg as KernelMessage.ICommMsgMsg).content;
  if (typeof content.comm_id !== 'string' || !content.comm_id.startsWith(PROBE_PREFIX)) {
    return;
  }
  const kernel = context.session?.kernel;
  const nonce = (content.data as { probe?: unknown })?.probe;
  if (!kernel || typeof nonce !== 'string') {
    return;
  }
  const comm = kernel.createComm(HANDSHAKE_TARGET);
  comm.open({ nonce, version: MODULE_VERSION, views: VIEWS });
  comm.close();
}

export function answerProbes(tracker: INotebookTracker): void {
  const watch = (panel: NotebookPanel): void => {
    panel.sessionContext.iopubMessage.connect(onIOPub);
  };
  tracker.forEach(watch);
  tracker.widgetAdded.connect((_, panel) => watch(panel));
}
