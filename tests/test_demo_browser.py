"""The composer demo in headless Chromium: every Client rule of the RFD, as a user meets it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_readers_browser import NAVIGATE

pytestmark = [pytest.mark.build, pytest.mark.browser]

DEMO = '[data-acp-demo="prompt-suggestions"]'
RFD_PAGE = "rfds/prompt-suggestions/"


@pytest.fixture(scope="module")
def site_url(served_site: tuple[Path, str]) -> str:
    """The loopback URL of the site built once per session."""
    return served_site[1]


@pytest.fixture(scope="module")
def tab(browser):
    """One page for the whole module; each test loads the RFD afresh in it."""
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page, errors
    context.close()


@pytest.fixture
def page(tab, site_url: str):
    """The RFD page with a demo of its own, ready; no script error while it is used.

    The module's first test loads the page. Each next one leaves it for the home
    page and comes back, both by Material's instant navigation, as a reader
    following links would: the page's content, its demo with it, is fetched and
    set up anew, without the cost of starting the whole page again.
    """
    page, errors = tab
    errors.clear()
    rfd = site_url + RFD_PAGE
    if page.url == rfd and page.evaluate("typeof document$ !== 'undefined'"):
        before = page.locator(DEMO).first.element_handle()
        for url in (site_url, rfd):
            assert page.evaluate(NAVIGATE, url) == url
        assert before.evaluate("root => !root.isConnected"), "the demo was not set up anew"
    else:
        page.goto(rfd)
        page.wait_for_load_state("networkidle")  # Material takes links over from here
    page.wait_for_function(f"() => document.querySelector('{DEMO}').acpDemo !== undefined")
    yield page
    assert errors == [], errors


def _composer(page):
    return page.locator(f"{DEMO} textarea").first


def _send(page, name: str) -> None:
    page.locator(f'{DEMO} [data-acp-demo-send="{name}"]').first.click()


def _placeholder(page) -> str:
    return _composer(page).get_attribute("placeholder") or ""


def _user_messages(page) -> list[str]:
    return page.locator(f'{DEMO} [data-role="user"] .acp-demo__text').all_text_contents()


def _status(page) -> str:
    return page.locator(f"{DEMO} [data-acp-demo-status]").first.text_content() or ""


def _state(page) -> str:
    """The Agent's foreground state, as the demo's Client last saw it."""
    return (
        page.locator(f"{DEMO} [data-acp-demo-state]").first.get_attribute("data-acp-demo-state")
        or ""
    )


def _wait_for_state(page, state: str) -> None:
    """Wait for `state`; for idle, one that ends the work (no prompt of the user's pending)."""
    page.wait_for_function(
        f"""() => (({{dataset}}) => dataset.acpDemoState === {json.dumps(state)}
            && ({json.dumps(state)} !== "idle" || dataset.busy === "false"))(
            document.querySelector('{DEMO} [data-acp-demo-state]'))""",
        timeout=10000,
    )


def _prompt(page, text: str) -> None:
    _composer(page).focus()
    page.keyboard.type(text)
    page.keyboard.press("Enter")


SEVERAL = [
    "Run the test suite and fix what breaks",
    "Add a regression test for the parser fix",
    "Explain the change to the parser",
]


def test_first_suggestion_is_ghost_text_and_the_others_follow_in_order(page) -> None:
    _send(page, "several")
    composer = _composer(page)
    assert composer.input_value() == ""
    assert _placeholder(page) == SEVERAL[0]
    composer.focus()
    seen = [_placeholder(page)]
    for _ in range(3):
        page.keyboard.press("ArrowDown")
        seen.append(_placeholder(page))
    assert seen == [*SEVERAL, SEVERAL[0]]
    page.keyboard.press("ArrowUp")
    assert _placeholder(page) == SEVERAL[2]


def test_tab_accepts_without_sending_and_enter_sends_the_edited_prompt(page) -> None:
    before = _user_messages(page)
    _send(page, "one")
    composer = _composer(page)
    composer.focus()
    page.keyboard.press("Tab")
    assert composer.input_value() == SEVERAL[0]
    assert _user_messages(page) == before, "accepting must not send"
    assert composer.evaluate("el => el === document.activeElement")
    page.keyboard.type(" in CI")
    assert _user_messages(page) == before
    page.keyboard.press("Enter")
    assert _user_messages(page) == [*before, SEVERAL[0] + " in CI"]
    assert composer.input_value() == ""


def test_escape_drops_the_offer(page) -> None:
    _send(page, "one")
    _composer(page).focus()
    page.keyboard.press("Escape")
    assert _placeholder(page) != SEVERAL[0]
    page.keyboard.press("Tab")
    assert _composer(page).input_value() == ""


def test_the_first_keystroke_drops_the_offer(page) -> None:
    _send(page, "several")
    _composer(page).focus()
    page.keyboard.type("S")
    page.keyboard.press("Backspace")
    assert _composer(page).input_value() == ""
    assert _placeholder(page) not in SEVERAL


def test_a_new_update_replaces_the_set_and_an_empty_list_withdraws_it(page) -> None:
    _send(page, "several")
    _composer(page).focus()
    page.keyboard.press("ArrowDown")
    _send(page, "one")
    assert _placeholder(page) == SEVERAL[0]
    _composer(page).focus()
    page.keyboard.press("ArrowDown")
    assert _placeholder(page) == SEVERAL[0], "the old set must be gone, not merged"
    _send(page, "empty")
    assert _placeholder(page) not in SEVERAL
    assert page.locator(f"{DEMO} [data-acp-demo-status]").text_content() == (
        "The Agent withdrew its suggestions."
    )


def test_a_suggestion_from_before_the_latest_prompt_is_never_shown(page) -> None:
    page.locator(f"{DEMO} [data-acp-demo-delay]").first.check()
    _send(page, "one")
    composer = _composer(page)
    composer.focus()
    page.keyboard.type("Ship it")
    page.keyboard.press("Enter")
    panel = f"document.querySelector('{DEMO} .acp-demo__panel').textContent"
    page.wait_for_function(f"() => {panel}.includes('prompt_suggestions')")
    assert _placeholder(page) not in SEVERAL
    page.keyboard.press("Tab")
    assert composer.input_value() == ""
    assert "Dropped" in _status(page)
    assert "after you sent a prompt" in _status(page)
    # Nothing comes back when the work ends.
    _wait_for_state(page, "idle")
    assert _placeholder(page) not in SEVERAL


def test_reloading_the_session_replays_history_but_no_suggestion(page) -> None:
    _send(page, "one")
    page.locator(f'{DEMO} [data-acp-demo-action="reload"]').first.click()
    assert _placeholder(page) not in SEVERAL
    panel = page.locator(f"{DEMO} .acp-demo__panel").first.text_content()
    assert "brought back 2 messages and no suggestion" in panel
    assert _user_messages(page) == ["Fix the failing parser test"]


def test_a_turn_without_suggestion_leaves_the_composer_usable(page) -> None:
    page.locator(f'{DEMO} [data-acp-demo-action="end-turn"]').first.click()
    _composer(page).focus()
    page.keyboard.type("Next step")
    page.keyboard.press("Enter")
    assert _user_messages(page)[-1] == "Next step"


def test_suggestion_text_is_inserted_as_text_never_as_html(page) -> None:
    attack = '<img src=x onerror="window.__xss = 1"><b>bold</b>'
    page.evaluate(
        """([selector, text]) => document.querySelector(selector).acpDemo.receive(
            {sessionUpdate: "prompt_suggestions", suggestions: [{text}]})""",
        [DEMO, attack],
    )
    assert _placeholder(page) == attack
    _composer(page).focus()
    page.keyboard.press("Tab")
    assert _composer(page).input_value() == attack
    page.keyboard.press("Enter")
    assert _user_messages(page)[-1] == attack
    assert page.locator(f"{DEMO} img, {DEMO} b").count() == 0
    # Two frames and a task later, nothing was parsed as HTML anywhere on the page.
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))")
    assert page.evaluate("window.__xss") is None
    assert page.locator(f"{DEMO} img, {DEMO} b").count() == 0
    assert json.dumps(attack) in page.locator(f"{DEMO} .acp-demo__panel").first.text_content()


def test_the_panel_shows_the_last_update_received(page) -> None:
    _send(page, "empty")
    panel = page.locator(f"{DEMO} .acp-demo__panel").first.text_content()
    assert '"sessionUpdate": "prompt_suggestions"' in panel
    assert '"suggestions": []' in panel


def test_keyboard_alone_reaches_every_control_and_tab_is_not_trapped(page) -> None:
    composer = _composer(page)
    composer.focus()
    page.keyboard.press("Tab")
    assert not composer.evaluate("el => el === document.activeElement"), "Tab was trapped"
    assert page.evaluate("document.activeElement.dataset.acpDemoSend") == "one"
    page.keyboard.press("Enter")
    assert _placeholder(page) == SEVERAL[0]


def test_the_offered_suggestion_is_announced(page) -> None:
    status = page.locator(f"{DEMO} [data-acp-demo-status]").first
    assert status.get_attribute("aria-live") == "polite"
    _send(page, "several")
    assert status.text_content().startswith(f"Suggestion 1 of 3: {SEVERAL[0]}")
    description = _composer(page).get_attribute("aria-describedby")
    assert page.locator(f"#{description}").text_content().startswith("When a suggestion")


CONTRAST = """(root) => {
  const parse = (c) => c.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    for (; el; el = el.parentElement) {
      const c = parse(getComputedStyle(el).backgroundColor);
      if (c.length < 4 || c[3] > 0) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const ratio = (el, color) => {
    const bg = background(el);
    const [r, g, b, a = 1] = parse(color || getComputedStyle(el).color);
    const fg = [r, g, b].map((v, i) => v * a + bg[i] * (1 - a));
    const [x, y] = [lum(fg), lum(bg)];
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
  };
  const area = root.querySelector("textarea");
  const items = [
    ...root.querySelectorAll(".acp-demo__text, button, .acp-demo__status, .acp-demo__state"),
  ];
  const button = root.querySelector("button");
  button.focus();
  const focused = ratio(button);
  button.blur();
  return {
    text: Math.min(...items.map((el) => ratio(el))),
    focused,
    ghost: ratio(area, getComputedStyle(area, "::placeholder").color),
  };
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_readable_in_both_palettes(tab, site_url: str, scheme: str) -> None:
    page, errors = tab
    errors.clear()
    page.emulate_media(color_scheme=scheme)
    try:
        page.goto(site_url + RFD_PAGE)
        # Material keeps the palette of an earlier visit; this one follows the system's.
        page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        page.reload()
        expected = "slate" if scheme == "dark" else "default"
        assert page.evaluate("document.body.dataset.mdColorScheme") == expected
        page.wait_for_function(f"() => document.querySelector('{DEMO}').acpDemo !== undefined")
        page.locator(f'{DEMO} [data-acp-demo-send="one"]').first.click()
        page.mouse.move(0, 0)
        ratios = page.locator(DEMO).first.evaluate(CONTRAST)
        assert ratios["text"] >= 4.5, ratios
        assert ratios["focused"] >= 4.5, ratios
        assert ratios["ghost"] >= 3, ratios
    finally:
        page.emulate_media(color_scheme="light")
    assert errors == [], errors


def test_the_demo_works_after_instant_navigation(tab, site_url: str) -> None:
    page, errors = tab
    errors.clear()
    page.goto(site_url)
    # Material intercepts links only once it has read the sitemap: wait for it.
    page.wait_for_load_state("networkidle")
    page.evaluate("window.__sameDocument = true")
    page.locator('.md-content a[href$="rfds/prompt-suggestions/"]').first.click()
    page.wait_for_url("**/rfds/prompt-suggestions/")
    page.wait_for_function(f"() => document.querySelector('{DEMO}')?.acpDemo !== undefined")
    assert page.evaluate("window.__sameDocument") is True, "instant navigation did not happen"
    page.locator(f'{DEMO} [data-acp-demo-send="one"]').first.click()
    assert page.locator(f"{DEMO} textarea").first.get_attribute("placeholder") == SEVERAL[0]
    assert errors == [], errors


def test_the_transcript_shows_the_newest_message_and_a_keyboard_can_scroll_it(page) -> None:
    composer = _composer(page)
    for prompt in ("First", "Second", "Third", "Fourth"):
        composer.focus()
        page.keyboard.type(prompt)
        page.keyboard.press("Enter")
    transcript = page.locator(f"{DEMO} .acp-demo__transcript").first
    # The replies come when the Agent's work ends; the newest one must be in view.
    _wait_for_state(page, "idle")
    geometry = transcript.evaluate(
        "el => ({top: el.scrollTop, height: el.clientHeight, full: el.scrollHeight})"
    )
    assert geometry["full"] > geometry["height"], "the test needs a transcript that overflows"
    assert geometry["top"] + geometry["height"] >= geometry["full"] - 1, geometry
    transcript.focus()
    assert transcript.evaluate("el => el === document.activeElement")
    page.keyboard.press("Home")
    # The browser may scroll smoothly: wait for it to reach the top.
    page.wait_for_function(
        f"() => document.querySelector('{DEMO} .acp-demo__transcript').scrollTop === 0",
        timeout=5000,
    )


def test_right_after_an_agent_button_is_clicked_tab_accepts(page) -> None:
    _send(page, "one")
    page.keyboard.press("Tab")
    assert _composer(page).input_value() == SEVERAL[0]


def test_a_turn_without_suggestion_is_a_prompt_and_a_reply_and_clears_the_offer(page) -> None:
    _send(page, "one")
    assert _placeholder(page) == SEVERAL[0]
    page.locator(f'{DEMO} [data-acp-demo-action="end-turn"]').first.click()
    assert _placeholder(page) != SEVERAL[0]
    _wait_for_state(page, "idle")
    roles = page.locator(f"{DEMO} [data-role]").evaluate_all("els => els.map(e => e.dataset.role)")
    assert roles[-2:] == ["user", "agent"]
    page.keyboard.press("Tab")
    assert _composer(page).input_value() == ""


def test_an_update_still_on_its_way_when_the_session_reloads_never_shows(browser, site_url) -> None:
    # A fake clock of its own: installed in the shared tab, it outlives the test and breaks
    # the theme's timers on the next page load.
    context = browser.new_context()
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.clock.install()
        page.goto(site_url + RFD_PAGE)
        page.wait_for_function(f"() => document.querySelector('{DEMO}').acpDemo !== undefined")
        page.locator(f"{DEMO} [data-acp-demo-delay]").first.check()
        _send(page, "one")
        page.locator(f'{DEMO} [data-acp-demo-action="reload"]').first.click()
        page.clock.run_for(5000)
        assert _placeholder(page) not in SEVERAL
        status = page.locator(f"{DEMO} [data-acp-demo-status]").first.text_content()
        assert status == "Session reloaded. Suggestions are not replayed."
        assert errors == [], errors
    finally:
        context.close()


def test_enter_that_ends_an_input_method_composition_does_not_send(page) -> None:
    before = _user_messages(page)
    composer = _composer(page)
    composer.fill("日本語")
    composer.dispatch_event("keydown", {"key": "Enter", "isComposing": True})
    assert _user_messages(page) == before
    composer.focus()
    page.keyboard.press("Enter")
    assert _user_messages(page) == [*before, "日本語"]


def test_on_a_touch_screen_a_tap_accepts_and_next_shows_the_others(browser, site_url) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    try:
        phone = context.new_page()
        phone.goto(site_url + RFD_PAGE)
        phone.wait_for_function(f"() => document.querySelector('{DEMO}').acpDemo !== undefined")
        accept = phone.locator(f"{DEMO} [data-acp-demo-accept]").first
        assert accept.is_hidden(), "nothing to accept before an offer"
        phone.locator(f'{DEMO} [data-acp-demo-send="several"]').first.tap()
        phone.locator(f"{DEMO} [data-acp-demo-next]").first.tap()
        accept.tap()
        assert phone.locator(f"{DEMO} textarea").first.input_value() == SEVERAL[1]
        assert accept.is_hidden()
    finally:
        context.close()


def test_without_javascript_the_demo_says_what_it_would_show(browser, site_url) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        plain = context.new_page()
        plain.goto(site_url + RFD_PAGE)
        text = plain.locator(DEMO).first.inner_text()
        assert text.startswith("This live demo needs JavaScript.")
        assert "Tab" in text and "Escape" in text
    finally:
        context.close()


def test_the_state_line_shows_running_while_the_agent_works_then_idle(page) -> None:
    line = page.locator(f"{DEMO} [data-acp-demo-state]").first
    assert line.get_attribute("role") == "status"
    assert line.get_attribute("aria-live") == "polite"
    assert _state(page) == "idle" and "idle" in line.text_content()
    _prompt(page, "Rename the lexer")
    assert _state(page) == "running"
    assert "running" in line.text_content()
    assert _user_messages(page)[-1] == "Rename the lexer"
    # Still working: the reply has not come yet.
    roles = page.locator(f"{DEMO} [data-role]").evaluate_all("els => els.map(e => e.dataset.role)")
    assert roles[-1] == "user"
    # The reply arrives first, then the state goes idle.
    seen = page.evaluate(
        """(selector) => new Promise((resolve) => {
          const root = document.querySelector(selector);
          const line = root.querySelector("[data-acp-demo-state]");
          new MutationObserver((_, observer) => {
            if (line.dataset.acpDemoState !== "idle") return;
            observer.disconnect();
            resolve([...root.querySelectorAll("[data-role]")].map((e) => e.dataset.role));
          }).observe(line, {attributes: true});
        })""",
        DEMO,
    )
    assert seen[-2:] == ["user", "agent"]
    assert "idle" in line.text_content() and "running" not in line.text_content()


def test_a_suggestion_sent_while_the_agent_is_running_is_dropped(page) -> None:
    _prompt(page, "Fix the flaky test")
    assert _state(page) == "running"
    _send(page, "one")
    assert _placeholder(page) not in SEVERAL
    assert page.locator(DEMO).first.get_attribute("data-offered") == "0"
    assert "Dropped" in _status(page) and "running" in _status(page)
    _composer(page).focus()
    page.keyboard.press("Tab")
    assert _composer(page).input_value() == ""
    _wait_for_state(page, "idle")
    assert _placeholder(page) not in SEVERAL, "a dropped update does not come back at idle"
    # Once the work has ended, the same update is offered.
    _send(page, "one")
    assert _placeholder(page) == SEVERAL[0]


def test_work_the_agent_starts_on_its_own_withdraws_the_offer(page) -> None:
    _send(page, "several")
    assert _placeholder(page) == SEVERAL[0]
    before = page.locator(f"{DEMO} [data-role]").count()
    page.locator(f'{DEMO} [data-acp-demo-action="agent-work"]').first.click()
    assert _state(page) == "running"
    assert _placeholder(page) not in SEVERAL
    assert page.locator(f"{DEMO} [data-acp-demo-accept]").first.is_hidden()
    assert "withdrawn" in _status(page) and "moved on" in _status(page)
    assert _user_messages(page) == ["Fix the failing parser test"], "no prompt was sent"
    _send(page, "one")
    assert _placeholder(page) not in SEVERAL, "a suggestion during that work is dropped"
    assert "Dropped" in _status(page)
    _wait_for_state(page, "idle")
    roles = page.locator(f"{DEMO} [data-role]").evaluate_all("els => els.map(e => e.dataset.role)")
    assert len(roles) == before + 1 and roles[-1] == "agent"
    assert _placeholder(page) not in SEVERAL


GOOD = {"text": "Run the linter"}


@pytest.mark.parametrize(
    "suggestions",
    [
        [GOOD, {"text": ""}],
        [GOOD, {"text": " \u00a0\t\n"}],
        [{}, GOOD],
        [GOOD, "Run the linter"],
        [GOOD, {"text": 3}],
        [GOOD, None],
        [{"text": ""}],
        None,
        "Run the linter",
    ],
    ids=[
        "empty-text",
        "white-space-text",
        "no-text",
        "not-an-object",
        "text-not-a-string",
        "null-entry",
        "every-entry-bad",
        "null-list",
        "not-a-list",
    ],
)
def test_an_update_with_one_bad_entry_is_rejected_whole_and_changes_nothing(
    page, suggestions
) -> None:
    _send(page, "several")
    _composer(page).focus()
    page.keyboard.press("ArrowDown")
    assert _placeholder(page) == SEVERAL[1]
    update = {"sessionUpdate": "prompt_suggestions", "suggestions": suggestions}
    # The entry point the Agent's buttons use.
    page.evaluate(
        "([selector, update]) => document.querySelector(selector).acpDemo.agentSends(update, true)",
        [DEMO, update],
    )
    assert "Rejected the whole update" in _status(page)
    assert "The offer is unchanged" in _status(page)
    assert _placeholder(page) == SEVERAL[1], "the offer, and the one shown, stay as they were"
    assert page.locator(DEMO).first.get_attribute("data-offered") == "3"
    page.keyboard.press("ArrowDown")
    assert _placeholder(page) == SEVERAL[2]
    page.keyboard.press("Tab")
    assert _composer(page).input_value() == SEVERAL[2]


def test_reloading_while_the_agent_works_keeps_the_work_and_no_suggestion(page) -> None:
    _send(page, "one")
    page.locator(f'{DEMO} [data-acp-demo-action="agent-work"]').first.click()
    page.locator(f'{DEMO} [data-acp-demo-action="reload"]').first.click()
    # The snapshot after the replay says the work goes on: suggestions still wait.
    assert _state(page) == "running"
    _send(page, "one")
    assert _placeholder(page) not in SEVERAL
    _wait_for_state(page, "idle")
    assert (
        page.locator(f"{DEMO} [data-role]").evaluate_all("els => els.map(e => e.dataset.role)")[-1]
        == "agent"
    )
    assert _placeholder(page) not in SEVERAL


def test_requires_action_counts_as_foreground_work(page) -> None:
    _send(page, "one")
    assert _placeholder(page) == SEVERAL[0]
    report = "([selector, state]) => document.querySelector(selector).acpDemo.agentReports(state)"
    page.evaluate(report, [DEMO, "requires_action"])
    assert _state(page) == "requires_action"
    assert _placeholder(page) not in SEVERAL, "work that starts blocked withdraws the offer too"
    _send(page, "one")
    assert _placeholder(page) not in SEVERAL
    assert "Dropped" in _status(page) and "requires_action" in _status(page)
    page.evaluate(report, [DEMO, "idle"])
    _send(page, "one")
    assert _placeholder(page) == SEVERAL[0]
