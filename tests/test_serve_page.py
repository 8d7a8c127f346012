"""Issue #21: the served page makes no request outside this server (it loaded Google's web
font), and a request with no token is logged as "no token" (not "wrong token")."""

from __future__ import annotations

import re

import pytest
from aiohttp.test_utils import TestClient, TestServer

from memharness_tui.tui.serve import Gate, GuardedServer

TOKEN = "t0ken-For-The-Tests_only0123456789abcdefghi"
PORT = 8123
HOST = {"Host": f"localhost:{PORT}"}
URL = re.compile(r"""(?:[a-z]+:)?//[^\s"'()<>]+""", re.IGNORECASE)


async def fetch(path: str) -> tuple[int, str]:
    server = GuardedServer("true", PORT, token=TOKEN)
    async with TestClient(TestServer(server.make_app())) as client:
        response = await client.get(path, headers=HOST)
        return response.status, (await response.read()).decode("utf-8", "replace")


async def test_the_page_names_no_address_but_its_own() -> None:
    status, page = await fetch(f"/?token={TOKEN}")
    assert status == 200
    own = (f"http://localhost:{PORT}/", f"ws://localhost:{PORT}/")
    urls = URL.findall(page)
    assert urls, "the page names its script and socket"
    assert [u for u in urls if not u.startswith(own)] == []
    assert "fonts.googleapis" not in page


async def test_the_font_comes_from_this_server() -> None:
    _, page = await fetch(f"/?token={TOKEN}")
    fonts = re.findall(r'url\("http://localhost:\d+(/static/[^"]+\.ttf)"\)', page)
    assert len(fonts) == 2 and all(f"/static/{TOKEN}/fonts/" in f for f in fonts)
    for font in fonts:
        status, _ = await fetch(font)
        assert status == 200


@pytest.mark.parametrize("path", ["/static/js/textual.js", "/static/css/xterm.css",
                                  "/static/fonts/RobotoMono-VariableFont_wght.ttf"])
def test_an_asset_asked_for_without_a_token_is_refused_for_having_none(path: str) -> None:
    assert Gate(TOKEN, PORT).refusal(path, None, HOST["Host"], None) == (403, "no token")


async def test_the_log_says_no_token(capsys: pytest.CaptureFixture[str]) -> None:
    status, _ = await fetch("/static/js/textual.js")
    assert status == 403
    assert capsys.readouterr().err.strip().endswith(": no token")
