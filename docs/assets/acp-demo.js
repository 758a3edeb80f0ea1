/*
 * A live composer that follows the Client rules of the prompt_suggestions RFD.
 *
 * The root element, marked data-acp-demo="prompt-suggestions", carries the
 * example updates the docs validate in its data-acp-demo-examples attribute.
 * The widget plays the Client; its buttons play the Agent.
 *
 * The turn boundary is the session's foreground state, as in ACP v2: the
 * Agent reports `running` when its work starts (on a prompt, or on its own)
 * and `idle` when the work ends. The Client offers suggestions only while the
 * last state it saw is `idle`, every prompt it sent is answered, and an `idle`
 * has followed the last answer; its Agent answers each prompt before the
 * `idle` that ends the work, as the RFD asks. (In v1 the prompt's response
 * ends the turn the same way.)
 *
 * Everything the Agent sends travels one ordered wire, after a network delay
 * when the box is ticked; reloading the session drops what is still on it.
 *
 * Suggestion text only ever reaches the page through textContent, value and
 * the placeholder attribute: never as HTML.
 */
(function () {
  "use strict";

  var SELECTOR = '[data-acp-demo="prompt-suggestions"]';
  var DELAY_MS = 1200;
  // How long the Agent works on a prompt, or on work it starts on its own.
  var WORK_MS = 1500;
  var HINT = "Type a prompt. Enter sends it.";

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      node.setAttribute(name, attrs[name]);
    });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function isSuggestion(s) {
    return (
      s !== null &&
      typeof s === "object" &&
      typeof s.text === "string" &&
      s.text.trim().length > 0
    );
  }

  /* Why the Client rejects an update whole, or null when it can read it: a
     list is required, and one bad entry spoils the update. A rejected update
     changes nothing; above all, it is never read as an empty list. */
  function rejection(update) {
    if (
      update === null ||
      typeof update !== "object" ||
      update.sessionUpdate !== "prompt_suggestions"
    ) {
      return "it is not a prompt_suggestions update";
    }
    if (!Array.isArray(update.suggestions)) {
      return "suggestions must be a list";
    }
    for (var i = 0; i < update.suggestions.length; i += 1) {
      if (!isSuggestion(update.suggestions[i])) {
        return (
          "suggestion " +
          (i + 1) +
          " of " +
          update.suggestions.length +
          " is not an object with a non-empty text"
        );
      }
    }
    return null;
  }

  function Demo(root) {
    this.root = root;
    this.examples = JSON.parse(
      root.getAttribute("data-acp-demo-examples") || "[]",
    );
    this.history = [
      { role: "user", text: "Fix the failing parser test" },
      {
        role: "agent",
        text: "Fixed: the lexer dropped the last token. All 42 tests pass.",
      },
    ];
    // The Agent's own record of the conversation: what a reload replays.
    this.log = this.history.slice();
    // The Client's side: the last foreground state it saw (a new session is
    // idle), whether it sent a prompt that no `idle` after its answer has
    // ended yet, and how many of its prompts are still unanswered.
    this.state = "idle";
    this.sentSinceIdle = false;
    this.unanswered = 0;
    this.offer = [];
    this.held = null;
    this.index = 0;
    // The Agent's side: the pieces of foreground work it is busy with.
    this.jobs = 0;
    // The ordered wire from the Agent to the Client.
    this.queue = [];
    this.timer = null;
    this.build();
    this.render();
  }

  Demo.prototype.build = function () {
    var self = this;
    var id = "acp-demo-" + Math.random().toString(36).slice(2, 8);
    var root = this.root;

    // Focusable, so a keyboard can scroll it; newest message at the bottom.
    this.transcript = el("ol", {
      class: "acp-demo__transcript",
      "aria-label": "Transcript",
      tabindex: "0",
    });
    // The Agent's foreground state, as the Client last saw it.
    this.stateLine = el("p", {
      class: "acp-demo__state",
      role: "status",
      "aria-live": "polite",
      "data-acp-demo-state": "idle",
    });
    this.stateLine.appendChild(
      el("span", { class: "acp-demo__dot", "aria-hidden": "true" }),
    );
    var words = el("span", {}, "Agent state: ");
    this.stateValue = el("strong", {}, "idle");
    this.stateDetail = el("span", {});
    words.appendChild(this.stateValue);
    words.appendChild(this.stateDetail);
    this.stateLine.appendChild(words);
    this.composer = el("textarea", {
      class: "acp-demo__composer",
      rows: "2",
      "aria-label": "Composer",
      "aria-describedby": id + "-keys",
      placeholder: HINT,
    });
    this.keys = el(
      "p",
      { class: "acp-demo__keys", id: id + "-keys" },
      "When a suggestion is offered: Tab (or the Accept button) puts it in " +
        "the composer, Up and Down (or Next) show the others, Escape or " +
        "typing dismisses it.",
    );
    // For touch screens and mice: the same actions as Tab and Down.
    this.actions = el("div", {
      class: "acp-demo__actions",
      role: "group",
      "aria-label": "Suggestion",
    });
    this.acceptButton = el(
      "button",
      { type: "button", class: "md-button", "data-acp-demo-accept": "" },
      "Accept",
    );
    this.nextButton = el(
      "button",
      { type: "button", class: "md-button", "data-acp-demo-next": "" },
      "Next",
    );
    this.acceptButton.addEventListener("click", function () {
      self.accept();
      self.composer.focus();
    });
    this.nextButton.addEventListener("click", function () {
      self.step(1);
    });
    this.actions.appendChild(this.acceptButton);
    this.actions.appendChild(this.nextButton);
    this.status = el("p", {
      class: "acp-demo__status",
      role: "status",
      "aria-live": "polite",
      "data-acp-demo-status": "",
    });

    var agent = el("div", {
      class: "acp-demo__agent",
      role: "group",
      "aria-label": "Act as the Agent",
    });
    agent.appendChild(
      el("p", { class: "acp-demo__label" }, "Act as the Agent"),
    );
    this.examples.forEach(function (example) {
      var button = el(
        "button",
        {
          type: "button",
          class: "md-button",
          "data-acp-demo-send": example.name,
        },
        example.label,
      );
      button.addEventListener("click", function () {
        self.agentSends(example.update, true);
      });
      agent.appendChild(button);
    });
    var noSuggestion = el(
      "button",
      {
        type: "button",
        class: "md-button",
        "data-acp-demo-action": "end-turn",
      },
      "End a turn with no suggestion",
    );
    noSuggestion.addEventListener("click", function () {
      self.endTurnWithout();
    });
    var ownWork = el(
      "button",
      {
        type: "button",
        class: "md-button",
        "data-acp-demo-action": "agent-work",
      },
      "Start work on its own (no prompt)",
    );
    ownWork.addEventListener("click", function () {
      self.agentStarts();
    });
    var reload = el(
      "button",
      { type: "button", class: "md-button", "data-acp-demo-action": "reload" },
      "Reload the session",
    );
    reload.addEventListener("click", function () {
      self.reload();
    });
    agent.appendChild(noSuggestion);
    agent.appendChild(ownWork);
    agent.appendChild(reload);

    var delayLabel = el("label", { class: "acp-demo__delay" });
    this.delay = el("input", { type: "checkbox", "data-acp-demo-delay": "" });
    delayLabel.appendChild(this.delay);
    delayLabel.appendChild(
      document.createTextNode(" Deliver updates after a network delay"),
    );
    agent.appendChild(delayLabel);

    this.panel = el(
      "pre",
      { class: "acp-demo__panel", "aria-label": "Last update received" },
      "No update received yet.",
    );

    var client = el("div", { class: "acp-demo__client" });
    client.appendChild(this.transcript);
    client.appendChild(this.stateLine);
    client.appendChild(this.composer);
    client.appendChild(this.actions);
    client.appendChild(this.keys);
    client.appendChild(this.status);

    var panelBox = el("div", { class: "acp-demo__json" });
    panelBox.appendChild(
      el("p", { class: "acp-demo__label" }, "Last update received"),
    );
    panelBox.appendChild(this.panel);

    root.textContent = "";
    root.appendChild(client);
    root.appendChild(agent);
    root.appendChild(panelBox);

    this.composer.addEventListener("keydown", function (event) {
      self.onKey(event);
    });
    this.composer.addEventListener("input", function () {
      self.onInput();
    });
    root.acpDemo = this;
  };

  Demo.prototype.say = function (text) {
    this.status.textContent = text;
  };

  Demo.prototype.offered = function () {
    return this.composer.value === "" && this.offer.length > 0;
  };

  Demo.prototype.render = function () {
    var self = this;
    this.transcript.textContent = "";
    this.history.forEach(function (message) {
      var item = el("li", {
        class: "acp-demo__message acp-demo__message--" + message.role,
        "data-role": message.role,
      });
      item.appendChild(
        el(
          "span",
          { class: "acp-demo__who" },
          message.role === "user" ? "You" : "Agent",
        ),
      );
      item.appendChild(el("span", { class: "acp-demo__text" }, message.text));
      self.transcript.appendChild(item);
    });
    this.transcript.scrollTop = this.transcript.scrollHeight;
    var offered = this.offered();
    this.actions.hidden = !offered;
    this.nextButton.hidden = this.offer.length < 2;
    if (offered) {
      var text = this.offer[this.index];
      this.composer.setAttribute("placeholder", text);
      this.root.setAttribute("data-offered", String(this.offer.length));
      this.say(
        "Suggestion " +
          (this.index + 1) +
          " of " +
          this.offer.length +
          ": " +
          text +
          ". Press Tab or Accept to use it.",
      );
    } else {
      this.composer.setAttribute("placeholder", HINT);
      this.root.setAttribute("data-offered", "0");
    }
    this.renderState();
  };

  /* Only a change of text is announced, so a repeated snapshot stays quiet. */
  Demo.prototype.renderState = function () {
    var detail = "";
    if (this.state !== "idle") {
      detail = " (suggestions wait for idle)";
    } else if (this.sentSinceIdle) {
      detail = " (your prompt is on its way)";
    }
    this.stateLine.setAttribute("data-acp-demo-state", this.state);
    this.stateLine.setAttribute(
      "data-busy",
      String(this.state !== "idle" || this.sentSinceIdle),
    );
    if (this.stateValue.textContent !== this.state) {
      this.stateValue.textContent = this.state;
    }
    if (this.stateDetail.textContent !== detail) {
      this.stateDetail.textContent = detail;
    }
  };

  Demo.prototype.show = function (update) {
    this.panel.textContent = JSON.stringify(update, null, 2);
  };

  /* The wire from the Agent to the Client: messages arrive in the order they
     were sent, after the network delay when the box is ticked. */
  Demo.prototype.wire = function (deliver) {
    var at = Date.now() + (this.delay.checked ? DELAY_MS : 0);
    var last = this.queue[this.queue.length - 1];
    // Never ahead of a message still on its way (the box may have changed).
    if (last && last.at > at) at = last.at;
    this.queue.push({ at: at, deliver: deliver });
    if (this.timer === null) this.pump();
  };

  Demo.prototype.pump = function () {
    var self = this;
    window.clearTimeout(this.timer);
    this.timer = null;
    while (this.queue.length > 0 && this.queue[0].at <= Date.now()) {
      this.queue.shift().deliver();
    }
    if (this.queue.length > 0) {
      this.timer = window.setTimeout(
        function () {
          self.pump();
        },
        Math.max(0, this.queue[0].at - Date.now()),
      );
    }
  };

  /* The Agent sends a prompt_suggestions update. `fromButton`: the user
     pressed an Agent button, so the composer takes the focus when an offer
     arrives, ready for Tab. */
  Demo.prototype.agentSends = function (update, fromButton) {
    var self = this;
    if (this.delay.checked) {
      this.say("The Agent sent an update; it is on its way.");
    }
    this.wire(function () {
      self.receive(update);
      if (
        fromButton &&
        self.offered() &&
        self.root.contains(document.activeElement)
      ) {
        self.composer.focus();
      }
    });
  };

  /* The Agent reports its foreground state (a v2 `state_update`). */
  Demo.prototype.agentReports = function (state) {
    var self = this;
    var update = { sessionUpdate: "state_update", state: state };
    if (state === "idle") update.stopReason = "end_turn";
    this.wire(function () {
      self.receiveState(update);
    });
  };

  /* The Agent does a piece of foreground work, on a prompt or on its own:
     `running` when the first one starts, its reply, `idle` when none is left. */
  Demo.prototype.agentWorks = function (reply) {
    var self = this;
    if (this.jobs === 0) this.agentReports("running");
    this.jobs += 1;
    window.setTimeout(function () {
      var message = { role: "agent", text: reply };
      self.log.push(message);
      self.wire(function () {
        self.history.push(message);
        self.render();
      });
      self.jobs -= 1;
      if (self.jobs === 0) self.agentReports("idle");
    }, WORK_MS);
  };

  /* The Client side: a prompt_suggestions update arrives. */
  Demo.prototype.receive = function (update) {
    this.show(update);
    var why = rejection(update);
    if (why) {
      this.say(
        "Rejected the whole update: " + why + ". The offer is unchanged.",
      );
      return;
    }
    if (this.state !== "idle") {
      this.say(
        "Dropped suggestions that arrived while the Agent's state was " +
          this.state +
          ": they belong to work that has moved on. Suggestions count only " +
          "once the work has ended (idle).",
      );
      return;
    }
    if (this.sentSinceIdle) {
      this.say(
        "Dropped suggestions that arrived after you sent a prompt and " +
          "before the Agent's work ended: they were made for an earlier turn.",
      );
      return;
    }
    var texts = update.suggestions.map(function (s) {
      return s.text;
    });
    this.index = 0;
    if (texts.length === 0) {
      this.offer = [];
      this.held = null;
      this.render();
      this.say("The Agent withdrew its suggestions.");
      return;
    }
    if (this.composer.value !== "") {
      this.offer = [];
      this.held = texts;
      this.render();
      this.say(
        "Suggestions arrived while you type; clear the composer to see them.",
      );
      return;
    }
    this.held = null;
    this.offer = texts;
    this.render();
  };

  /* The Client side: a state_update arrives. Any state but idle (running,
     requires_action, or one the Client does not know) is foreground work. */
  Demo.prototype.receiveState = function (update) {
    var was = this.state;
    var own = was === "idle" && !this.sentSinceIdle;
    this.state = String(update.state);
    if (this.state === "idle") {
      // Only an idle after the prompt's answer ends its work: the earlier
      // work's idle may still have been on its way when the prompt went out.
      if (this.unanswered === 0) this.sentSinceIdle = false;
      this.render();
      return;
    }
    var had = this.offer.length > 0 || this.held !== null;
    this.offer = [];
    this.held = null;
    this.render();
    if (had) {
      this.say(
        "Work started, so the offer is withdrawn: its prediction belongs to " +
          "a transcript that has moved on.",
      );
    } else if (own) {
      this.say("The Agent started work on its own.");
    }
  };

  Demo.prototype.drop = function (why) {
    if (this.offer.length === 0) return false;
    this.offer = [];
    this.held = null;
    this.render();
    this.say(why);
    return true;
  };

  Demo.prototype.accept = function () {
    if (!this.offered()) return false;
    var text = this.offer[this.index];
    this.offer = [];
    this.composer.value = text;
    this.render();
    this.say("Accepted into the composer. Edit it, or press Enter to send it.");
    return true;
  };

  Demo.prototype.step = function (by) {
    if (!this.offered()) return;
    this.index = (this.index + by + this.offer.length) % this.offer.length;
    this.render();
  };

  Demo.prototype.onKey = function (event) {
    // Keys that confirm an input method's composition are not the composer's.
    if (event.isComposing || event.keyCode === 229) return;
    if (event.key === "Tab" && !event.shiftKey && this.offered()) {
      event.preventDefault();
      this.accept();
      return;
    }
    if (
      (event.key === "ArrowDown" || event.key === "ArrowUp") &&
      this.offered()
    ) {
      event.preventDefault();
      this.step(event.key === "ArrowDown" ? 1 : -1);
      return;
    }
    if (event.key === "Escape" && this.offered()) {
      event.preventDefault();
      this.drop("Suggestion dismissed.");
      return;
    }
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      this.send();
    }
  };

  Demo.prototype.onInput = function () {
    if (this.composer.value !== "") {
      this.drop("Suggestion dismissed: you started typing.");
    } else if (this.held) {
      this.offer = this.held;
      this.held = null;
      this.index = 0;
      this.render();
    }
  };

  /* The user sends a prompt: it ends the offer, and no suggestion counts
     until the prompt is answered and an idle follows. The Agent gets the
     prompt at once, starts work, and answers that the prompt was inserted. */
  Demo.prototype.prompt = function (text, reply) {
    var self = this;
    var message = { role: "user", text: text };
    this.offer = [];
    this.held = null;
    this.sentSinceIdle = true;
    this.unanswered += 1;
    this.history.push(message);
    this.composer.value = "";
    this.render();
    this.log.push(message);
    this.agentWorks(reply);
    this.wire(function () {
      self.unanswered -= 1;
    });
  };

  Demo.prototype.send = function () {
    var text = this.composer.value.trim();
    if (!text) return;
    this.say("Sent your prompt. The Agent is working on it.");
    this.prompt(text, "Working on it. Done.");
  };

  Demo.prototype.endTurnWithout = function () {
    this.say(
      "Sent a prompt; its work will end with no suggestion. Nothing to wait for.",
    );
    this.prompt(
      this.composer.value.trim() || "Tidy up the imports",
      "Done. (Rate limited: no suggestion this turn.)",
    );
  };

  /* Foreground work the Agent starts without a prompt: following up on a
     background task. Its `running` withdraws the offer. */
  Demo.prototype.agentStarts = function () {
    if (this.delay.checked) {
      this.say("The Agent started work on its own; its state is on its way.");
    }
    this.agentWorks(
      "Followed up on its own: the background test run finished, all green.",
    );
  };

  /* The Client reloads the session (session/load in v1, session/resume in
     v2): the old connection goes, with every message still on its way; the
     history comes back; no suggestion does. */
  Demo.prototype.reload = function () {
    window.clearTimeout(this.timer);
    this.timer = null;
    this.queue = [];
    this.history = this.log.slice();
    this.offer = [];
    this.held = null;
    this.composer.value = "";
    // The current-state snapshot that session/resume sends after the replay.
    this.state = this.jobs > 0 ? "running" : "idle";
    this.sentSinceIdle = false;
    this.unanswered = 0;
    this.render();
    this.panel.textContent =
      "The history replay (session/load in v1, session/resume in v2) brought back " +
      this.history.length +
      " messages and no suggestion: suggestions are not history.";
    this.say("Session reloaded. Suggestions are not replayed.");
  };

  function init() {
    document.querySelectorAll(SELECTOR).forEach(function (root) {
      if (!root.acpDemo) new Demo(root);
    });
  }

  if (typeof window.document$ !== "undefined") {
    window.document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
