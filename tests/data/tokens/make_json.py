"""Generate the JSON tool-result samples of the token calibration corpus, deterministically.

Run ``python tests/data/tokens/make_json.py`` to rewrite ``json/*.json``; the files are
committed so the calibration never depends on this script's output changing silently.
Shapes imitate what agent tools return: file listings, search hits, API records, metrics,
grep output, issue lists, and a catalogue with Chinese values; compact and indented.
"""

from __future__ import annotations

import json
import random
import uuid
from pathlib import Path

OUT = Path(__file__).parent / "json"
WORDS = ["alpha", "beta", "report", "data", "model", "cache", "index", "query", "user", "order", "invoice", "parser", "token", "budget", "session", "window", "config", "plugin", "server", "client", "worker", "queue", "event", "metric", "trace", "sample", "export", "import", "notebook", "kernel", "widget", "layout", "render", "stream", "buffer", "schedule"]
EXTS = [".py", ".md", ".csv", ".json", ".ipynb", ".txt", ".yaml", ".png"]
FIRST = ["Alice", "Bob", "Carol", "David", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory", "Niaj", "Olivia", "Peggy"]
LAST = ["Smith", "Jones", "Brown", "Taylor", "Wilson", "Davies", "Evans", "Thomas", "Johnson", "Roberts", "Walker"]
ZH_NAMES = ["无线鼠标", "机械键盘", "显示器支架", "降噪耳机", "移动电源", "笔记本电脑包", "保温杯", "台灯"]
ZH_DESC = [
    "轻巧便携，续航时间长，适合办公和出差使用。",
    "采用环保材料，做工精细，支持七天无理由退货。",
    "人体工学设计，长时间使用也不容易疲劳。",
    "支持快速充电，兼容主流手机和平板电脑。",
]
CODE_LINES = [
    "def load_config(path: str) -> dict:",
    "    return json.loads(Path(path).read_text())",
    "class SessionStore(Protocol):",
    "    async def append(self, message: Message) -> None: ...",
    "if response.status_code == 429:",
    "raise ContextOverflowError(f\"prompt too long: {n} tokens\")",
    "for index, item in enumerate(items):",
    "logger.warning(\"retrying in %.1fs\", delay)",
]


def _ts(rng: random.Random) -> str:
    return (f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
            f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z")


def _path(rng: random.Random) -> str:
    depth = rng.randint(1, 4)
    return "/".join(rng.choice(WORDS) for _ in range(depth)) + "_" + rng.choice(WORDS) + rng.choice(EXTS)


def listing(rng: random.Random) -> object:
    return [
        {"name": _path(rng), "size": rng.randint(0, 5_000_000), "modified": _ts(rng),
         "type": rng.choice(["file", "file", "file", "dir"])}
        for _ in range(rng.randint(15, 30))
    ]


def search(rng: random.Random) -> object:
    return {
        "query": " ".join(rng.sample(WORDS, 3)),
        "total": rng.randint(10, 500),
        "results": [
            {"path": _path(rng), "line": rng.randint(1, 900), "score": round(rng.random(), 4),
             "text": " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))}
            for _ in range(rng.randint(8, 15))
        ],
    }


def users(rng: random.Random) -> object:
    out = []
    for _ in range(rng.randint(6, 12)):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        out.append({
            "id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            "name": f"{first} {last}",
            "email": f"{first.lower()}.{last.lower()}@example.org",
            "created_at": _ts(rng),
            "active": rng.random() > 0.2,
            "roles": rng.sample(["admin", "editor", "viewer", "billing", "support"], rng.randint(1, 3)),
            "address": {"city": rng.choice(["Lyon", "Berlin", "Austin", "Osaka", "Leeds"]),
                        "zip": f"{rng.randint(10000, 99999)}"},
            "balance": round(rng.uniform(-500, 5000), 2),
        })
    return {"page": 1, "per_page": len(out), "data": out}


def metrics(rng: random.Random) -> object:
    t0 = 1_700_000_000 + rng.randint(0, 10_000_000)
    return {"series": "host-7.cpu", "points": [
        {"ts": t0 + 60 * i, "cpu": round(rng.random(), 4), "mem_mb": round(rng.uniform(800, 16000), 1),
         "load": [round(rng.uniform(0, 4), 2) for _ in range(3)]}
        for i in range(rng.randint(20, 40))
    ]}


def grep(rng: random.Random) -> object:
    return {"pattern": rng.choice(["retry", "Session", "async def", "raise"]), "matches": [
        {"file": _path(rng).rsplit(".", 1)[0] + ".py", "line": rng.randint(1, 600),
         "text": rng.choice(CODE_LINES)}
        for _ in range(rng.randint(10, 20))
    ]}


def issues(rng: random.Random) -> object:
    return [
        {"number": rng.randint(1, 4000), "title": " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 8))).capitalize(),
         "state": rng.choice(["open", "closed"]), "labels": rng.sample(["bug", "enhancement", "docs", "ci", "perf"], 2),
         "author": rng.choice(FIRST).lower(), "comments": rng.randint(0, 40), "updated_at": _ts(rng),
         "sha": f"{rng.getrandbits(160):040x}"}
        for _ in range(rng.randint(8, 14))
    ]


def catalogue_zh(rng: random.Random) -> object:
    return {"商品列表": [
        {"编号": f"SKU-{rng.randint(100000, 999999)}", "名称": rng.choice(ZH_NAMES),
         "价格": round(rng.uniform(19, 2999), 2), "库存": rng.randint(0, 800),
         "描述": rng.choice(ZH_DESC), "标签": rng.sample(["热销", "新品", "包邮", "限时折扣"], 2)}
        for _ in range(rng.randint(6, 10))
    ]}


SHAPES = [listing, search, users, metrics, grep, issues, catalogue_zh]


def main() -> None:
    OUT.mkdir(exist_ok=True)
    rng = random.Random(20241130)
    for n in range(14):
        shape = SHAPES[n % len(SHAPES)]
        data = shape(rng)
        indent = 2 if n % 2 else None
        text = json.dumps(data, ensure_ascii=False, indent=indent)
        (OUT / f"js{n:02d}_{shape.__name__}.json").write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
