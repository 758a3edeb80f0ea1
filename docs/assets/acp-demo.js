/*
 * A live composer that follows the Client rules of the prompt_suggestions RFD.
 *
 * The root element, marked data-acp-demo="prompt-suggestions", carries the
 * example updates the docs validate in its data-acp-demo-examples attribute. The widget plays the Client; its buttons play the Agent.
 * Suggestion text only ever reaches the page through textContent, value and
 * the placeholder attribute: never as HTML.
 */
(function () {
  "use strict";

  var SELECTOR = '[data-acp-demo="prompt-suggestions"]';
  var DELAY_MS = 1200;
  var HINT = "Type a prompt. Enter sends it.";

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      node.setAttribute(name, attrs[name]);
    });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /* An update the Client can read: a list is required; a bad entry is dropped. */
  function isValidUpdate(update) {
    return (
      update !== null &&
      typeof update === "object" &&
      update.sessionUpdate === "prompt_suggestions" &&
      Array.isArray(update.suggestions)
    );
  }

  function isSuggestion(s) {
    return (
      s !== null &&
      typeof s === "object" &&
      typeof s.text === "string" &&
      s.text.length > 0
    );
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
    this.prompts = 0;
    this.session = 0;
    this.offer = [];
    this.held = null;
    this.index = 0;
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
    var reload = el(
      "button",
      { type: "button", class: "md-button", "data-acp-demo-action": "reload" },
      "Reload the session",
    );
    reload.addEventListener("click", function () {
      self.reload();
    });
    agent.appendChild(noSuggestion);
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
  };

  Demo.prototype.show = function (update) {
    this.panel.textContent = JSON.stringify(update, null, 2);
  };

  /* `fromButton`: the user pressed an Agent button, so the composer takes the
     focus when an offer arrives, ready for Tab. */
  Demo.prototype.agentSends = function (update, fromButton) {
    var self = this;
    var generation = this.prompts;
    var session = this.session;
    var deliver = function () {
      // An update still on its way when the session reloaded belongs to the old one.
      if (session !== self.session) return;
      self.receive(update, generation);
      if (
        fromButton &&
        self.offered() &&
        self.root.contains(document.activeElement)
      ) {
        self.composer.focus();
      }
    };
    if (this.delay.checked) {
      this.say("The Agent sent an update; it is on its way.");
      window.setTimeout(deliver, DELAY_MS);
    } else {
      deliver();
    }
  };

  /* The Client side: an update produced after `generation` prompts. */
  Demo.prototype.receive = function (update, generation) {
    if (generation === undefined) generation = this.prompts;
    this.show(update);
    if (!isValidUpdate(update)) {
      this.say("Ignored a malformed update.");
      return;
    }
    if (generation < this.prompts) {
      this.say(
        "Dropped suggestions for an earlier turn: they arrived after you sent a newer prompt.",
      );
      return;
    }
    var texts = update.suggestions.filter(isSuggestion).map(function (s) {
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

  /* A prompt and the Agent's reply: a new turn, so every offer made before it goes. */
  Demo.prototype.turn = function (prompt, reply) {
    this.prompts += 1;
    this.offer = [];
    this.held = null;
    this.history.push({ role: "user", text: prompt });
    this.history.push({ role: "agent", text: reply });
    this.composer.value = "";
    this.render();
  };

  Demo.prototype.send = function () {
    var text = this.composer.value.trim();
    if (!text) return;
    this.turn(text, "Working on it. Done.");
    this.say("Sent your prompt. The Agent replied.");
  };

  Demo.prototype.endTurnWithout = function () {
    this.turn(
      this.composer.value.trim() || "Tidy up the imports",
      "Done. (Rate limited: no suggestion this turn.)",
    );
    this.say(
      "Sent a prompt; the turn ended with no suggestion. Nothing to wait for.",
    );
  };

  Demo.prototype.reload = function () {
    var replayed = this.history.length;
    this.session += 1;
    this.offer = [];
    this.held = null;
    this.composer.value = "";
    this.render();
    this.panel.textContent =
      "The history replay (session/load in v1, session/resume in v2) brought back " +
      replayed +
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
