"""Kernel tools: the agent looks at, runs code in, and proposes cells for the user's kernel.

Registered in notebook runs only (the magic adds them to the Agent's tools):

- ``list_variables`` — names, types, shapes and sizes in the user namespace;
- ``inspect_variable`` — a safe, size-capped preview of one value (DataFrame, array, mapping…):
  it reads attributes, never evaluates code;
- ``run_python`` — runs code in the user namespace after consent through the approver (category
  ``kernel_python``); without consent nothing runs. Its displays and plots appear in the cell;
  stdout, the error and the text form of rich outputs go back to the model;
- ``propose_cell`` — puts code into a new cell below for the user to review and run. Without
  the labextension only ``set_next_input`` exists, which applies once, when the whole cell
  ends, and keeps only the last proposal: the tool tells the model so.

The tools run on the kernel's main thread (``thread=False``), as the user's own cells do:
user objects, matplotlib and signal handlers expect it.
"""

from .execute import execute_in_kernel
from .namespace import describe, list_variables_text, preview, resolve
from .tools import KERNEL_PYTHON, PROPOSE_CAVEAT, kernel_tools

__all__ = [
    "KERNEL_PYTHON",
    "PROPOSE_CAVEAT",
    "describe",
    "execute_in_kernel",
    "kernel_tools",
    "list_variables_text",
    "preview",
    "resolve",
]
