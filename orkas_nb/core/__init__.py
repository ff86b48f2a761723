"""Infrastructure: messages, events, errors. Imports nothing but the stdlib and pydantic."""

from .errors import *  # noqa: F401,F403
from .events import *  # noqa: F401,F403
from .messages import *  # noqa: F401,F403
