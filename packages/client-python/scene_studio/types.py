"""The API's request and answer shapes as TypedDicts, generated from its OpenAPI document.

A public name for the generated module (``_types``), which ``npm run client:generate`` rewrites.
"""

from ._types import *  # noqa: F401,F403
from ._types import __all__  # noqa: F401
