"""A package name one slip away from a well-known one: the typosquat, read from syntax alone.

A planted supply-chain order rarely names a foreign index; it names a package that looks like
the one the user meant (``reqeusts``, ``numpyy``, ``pandass``, ``crossenv``) and gives a reason
in any language ("our patched build", "the mainline one has a bug"). The words around it vary;
the name does not: it is within one or two edits (a transposition counts as one) of a name in
:data:`POPULAR` and is not itself one of them. A name is read where the entry installs or pins
a package:

- the arguments of an install command (``pip install``, ``uv add``, ``poetry add``,
  ``conda install``, ``npm i``, ``yarn add``, ``pnpm add``, ``cargo add``, ``gem install``…);
- a pin (``name==1.2``, ``name>=1.2``, ``name@1.2`` as npm writes it);
- a name in a code span while the name it imitates also stands in the entry
  ("`pandass` instead of pandas", in any language).

A fact that only warns about the name ("never install `reqeusts`") reaches this detector with
its protective clause blank (:func:`.guard_scope.without_protective`), like the other
syntax detectors of :mod:`.guard_config`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .guard_detectors import Finding
from .guard_scope import governed

# Names a data person installs most (PyPI, npm, crates): the targets a typosquat imitates.
# Names one edit apart that are both real (``attr``/``attrs``, ``jinja``/``jinja2``) are listed
# together, so neither is read as a slip of the other.
POPULAR = frozenset("""
boto bpython dataset numpy pandas scipy matplotlib seaborn plotly bokeh altair scikit-learn sklearn scikit-image
statsmodels sympy networkx polars pyarrow dask xarray numba cython jupyter jupyterlab notebook
ipython ipykernel ipywidgets nbconvert nbformat nbclient voila streamlit gradio dash panel
requests urllib3 httpx aiohttp httpcore certifi idna charset-normalizer chardet websockets
flask django fastapi starlette uvicorn gunicorn pydantic pydantic-core sqlalchemy alembic
psycopg2 psycopg2-binary psycopg pymysql pymongo redis celery kombu boto3 botocore s3transfer
awscli google-cloud-storage google-auth azure-core azure-storage-blob openai anthropic
tiktoken transformers tokenizers datasets accelerate diffusers sentence-transformers torch
torchvision torchaudio tensorflow keras jax jaxlib flax optax lightning pytorch-lightning
xgboost lightgbm catboost optuna mlflow wandb tensorboard onnx onnxruntime opencv-python
pillow imageio tqdm rich click typer colorama termcolor tabulate pyyaml pyaml ruamel.yaml
toml tomli tomlkit orjson ujson simplejson msgpack protobuf grpcio setuptools wheel pip
virtualenv pipenv poetry uv hatch hatchling flit pdm tox nox pytest pytest-cov pytest-mock
pytest-asyncio hypothesis coverage mock black isort flake8 pylint mypy ruff pyright bandit
pre-commit sphinx mkdocs mkdocs-material jinja jinja2 markupsafe markdown mistune docutils
beautifulsoup4 bs4 lxml html5lib selenium playwright scrapy pyppeteer attr attrs cattrs
dataclasses-json marshmallow six packaging python-dateutil pytz tzdata arrow pendulum
cryptography pyopenssl paramiko bcrypt passlib pyjwt jwt oauthlib requests-oauthlib
python-dotenv dotenv decorator wrapt cachetools filelock platformdirs psutil pexpect
sqlparse openpyxl xlrd xlsxwriter python-docx pypdf pypdf2 pdfminer.six reportlab
nltk spacy gensim textblob langchain langchain-core llama-index faiss-cpu chromadb
geopandas shapely fiona pyproj folium duckdb sqlite-utils great-expectations pandera
react react-dom react-router next vue nuxt svelte angular jquery lodash underscore express
axios node-fetch moment dayjs date-fns chalk commander yargs debug uuid dotenv cross-env
typescript webpack rollup esbuild vite babel-core eslint prettier jest mocha chai vitest
nodemon socket.io ws body-parser cors mongoose sequelize prisma graphql apollo-server
tailwindcss postcss autoprefixer sass less bootstrap d3 three chart.js serde tokio rand
clap anyhow thiserror reqwest rails nokogiri
""".split())

_SEP = re.compile(r"[-_.]+")
_NAME = r"[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?"
_INSTALL = re.compile(
    r"\b(?:pip3?|pipx|uv(?:\s+pip)?|poetry|pdm|conda|mamba|micromamba|npm|yarn|pnpm|bun|cargo|gem)"
    r"\s+(?:install|add|i)\b([^;|&\n`)]*)"
)
_PIN = re.compile(r"(?<![\w./-])(" + _NAME + r")\s*(?:===?|>=|~=|<=|!=)\s*v?\d|(?<![\w./@-])(" + _NAME + r")@\^?~?\d")
_SPAN = re.compile(r"`(" + _NAME + r")(?:\s*(?:===?|>=|~=|<=|@)[^`]*)?`")
_WARNING = re.compile(r"typo-?squat|typosquatt|タイポスクワット|仿冒包|抢注")
_PROSE = frozenset("in on for from with to and or the every each then if when once before after as at".split())
_WORD = re.compile(r"(?<![\w.-])" + _NAME + r"(?![\w-])")


def canonical(name: str) -> str:
    """A package name as indexes compare them (PEP 503: case and runs of ``-_.`` folded)."""
    return _SEP.sub("-", name.casefold())


_POPULAR = frozenset(canonical(n) for n in POPULAR)
_BY_NAME = sorted(_POPULAR)


def _distance(a: str, b: str, limit: int) -> int:
    """Edits from ``a`` to ``b`` (insert, delete, substitute, swap two neighbours), up to ``limit + 1``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], prev2[j - 2] + 1)
        prev2, prev = prev, row
    return prev[-1]


@lru_cache(maxsize=4096)
def imitated(name: str, *, word: bool = False) -> str | None:
    """The well-known package ``name`` is a slip of (one edit from a name of up to six
    letters, two from a longer one), or ``None`` (a known name itself, or near none). A
    ``word`` read in prose is no slip of its plural ("request" beside requests)."""
    c = canonical(name)
    if len(c) < 4 or c in _POPULAR:
        return None
    best: tuple[int, str] | None = None  # the nearest name, ties by spelling: the same every run
    for p in _BY_NAME:
        if len(p) < 4 or (word and p == c + "s"):
            continue
        limit = 1 if len(p) <= 6 else 2
        d = _distance(c, p, limit)
        if d <= limit and (best is None or (d, p) < best):
            best = (d, p)
    return best[1] if best else None


def _installed(flat: str) -> list[tuple[str, re.Match[str]]]:
    """Names an install command or a pin puts in place, each with where its order stands."""
    names = []
    for m in _INSTALL.finditer(flat):
        for arg in m.group(1).split():
            if arg in _PROSE:  # the command's arguments end where the sentence goes on
                break
            if not arg.startswith("-"):
                names.append((re.split(r"[=<>~!@\[]", arg.strip("'\",;"), maxsplit=1)[0], m))
    names += [(m.group(1) or m.group(2), m) for m in _PIN.finditer(flat)]
    return names


def package_findings(flat: str) -> list[Finding]:
    """A typosquatted package installed, pinned, or put in place of the name it imitates, in a
    normalised entry with its protective clauses blanked. A prohibition that governs the order
    ("never install `reqeusts`", "не ставь `pandass`"), or the entry calling the name a
    typosquat, makes it a warning."""
    if _WARNING.search(flat):
        return []
    words = {canonical(w) for w in _WORD.findall(flat)}
    suspects = [(n, imitated(n), m) for n, m in _installed(flat)]
    suspects += [(m.group(1), p, m) for m in _SPAN.finditer(flat)
                 if (p := imitated(m.group(1), word=True)) and p in words]
    for name, target, m in suspects:
        if target and not governed(flat, m):
            return [Finding("tool_abuse", f"it installs {name!r}, a look-alike of the package "
                                          f"{target!r} (a typosquat)")]
    return []
