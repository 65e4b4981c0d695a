// scripts/webapp/phone.js is a person's phone for the tests: ntfy's own
// web app, in Debian's headless Chromium, driven with playwright-core (the
// version package-lock.json pins; no browser is downloaded). One browser
// session per run: it signs in to the server as the phone's account,
// subscribes to the request topic, says {"event":"ready"} on stdout, and
// then answers commands, one JSON object a line on stdin, with one JSON
// line each on stdout:
//
//   {"id":1,"op":"await","has":["Deploy","Ship?"]}
//       waits for the card whose text holds each of has; answers with it:
//       {"id":1,"ok":true,"card":{title,body,date,priority,buttons:[{shown,label}],text}}
//       (shown is the button as the person sees it: ntfy shows labels in
//       capitals; label is the text behind it)
//   {"id":2,"op":"tap","has":[...],"label":"Approve"}
//       taps the card's button labelled so (in any case), as a person
//       does, and waits until the web app says how its request went, the
//       label then ending in " ✔" (a 2xx answer) or " ❌"; answers with
//       {"ok":true,"shown":"APPROVE ✔","card":{...}}
//   {"id":3,"op":"cards"}   every card's text, newest first
//   {"id":4,"op":"quit"}    closes the browser and exits (so does the end of stdin)
//
// A command that fails answers {"id":N,"ok":false,"error":"...","cards":[...]}
// with every card's text as the page shows it. What the app logs and its
// failed requests go to stderr.
//
// Environment: PHONE_URL (the ntfy server, http://127.0.0.1:PORT),
// PHONE_USER, PHONE_PASSWORD, PHONE_TOPIC; CHROMIUM (default
// /usr/bin/chromium); PHONE_TIMEOUT_MS, how long one step may wait
// (default 60000); NODE_PATH finds playwright-core.
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const readline = require("readline");
const { chromium } = require("playwright-core");

const env = (name, fallback) => {
  const v = process.env[name];
  if (v) return v;
  if (fallback !== undefined) return fallback;
  throw new Error(`phone.js: ${name} is not set`);
};

const server = env("PHONE_URL").replace(/\/$/, "");
const user = env("PHONE_USER");
const password = env("PHONE_PASSWORD");
const topic = env("PHONE_TOPIC");
const executablePath = env("CHROMIUM", "/usr/bin/chromium");
const timeout = Number(env("PHONE_TIMEOUT_MS", "60000"));

const say = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
const log = (line) => process.stderr.write(`phone.js: ${line}\n`);

// cardsOnPage runs in the page. Without has it returns every card, newest
// first, as the person sees it; with has, the newest card whose text holds
// each string of has, or null. With label too, it returns that card's
// button whose label is label in any case (and, with done, only once its
// label ends with " ✔" or " ❌": the web app's word on how its request
// went), or null.
function cardsOnPage(arg) {
  const read = (item) => {
    const content = item.querySelector(".MuiCardContent-root") || item;
    const date = content.querySelector("p");
    const title = content.querySelector('[role="rowheader"]');
    // The text is the paragraph after the title, or after the date
    // where there is no title.
    const body = (title || date)?.nextElementSibling;
    return {
      date: date ? date.innerText.trim() : "",
      title: title ? title.innerText.trim() : "",
      body: body ? body.innerText : "",
      priority: date?.querySelector("img")?.getAttribute("alt") || "",
      buttons: [...item.querySelectorAll(".MuiCardActions-root button")].map((b) => ({
        shown: b.innerText.trim(),
        label: b.textContent.trim(),
      })),
      text: item.innerText,
    };
  };
  const items = [...document.querySelectorAll('[role="listitem"]')];
  if (!arg) return items.map(read);
  const item = items.find((i) => arg.has.every((s) => i.innerText.includes(s)));
  if (!item) return null;
  if (arg.label === undefined) return read(item);
  const want = arg.label.toLowerCase();
  const buttons = [...item.querySelectorAll(".MuiCardActions-root button")].filter((b) => {
    const label = b.textContent.trim().toLowerCase();
    if (!arg.done) return label === want;
    return label === want + " ✔" || label === want + " ❌";
  });
  return buttons.length === 1 ? buttons[0] : null;
}

async function main() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "ask-confirm-webapp-"));
  let context;
  const cleanup = async () => {
    if (context) {
      const c = context;
      context = null;
      await c.close().catch(() => {});
    }
    fs.rmSync(profile, { recursive: true, force: true });
  };
  process.on("SIGTERM", () => cleanup().finally(() => process.exit(143)));

  try {
    // launchPersistentContext gives Chromium the fresh profile as its
    // --user-data-dir; headless adds --headless.
    context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      timeout,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
      ],
    });
    context.setDefaultTimeout(timeout);
    // As a person who let the app notify: it shows each message as a
    // desktop notification too, besides its card.
    await context.grantPermissions(["notifications"], { origin: server });
    const page = context.pages()[0] || (await context.newPage());
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") log(`console ${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => log(`page error: ${e.message}`));

    // The app opens one WebSocket per subscription; the server's "open"
    // event on the topic's is when a message sent now reaches the phone.
    const subscribed = new Promise((resolve) => {
      page.on("websocket", (ws) => {
        if (new URL(ws.url()).pathname !== `/${topic}/ws`) return;
        ws.on("framereceived", (f) => {
          try {
            if (JSON.parse(f.payload).event === "open") resolve();
          } catch {
            // not JSON: not the open event
          }
        });
      });
    });

    // Sign in as the phone's account, and subscribe to the request
    // topic, as a person does. ntfy's app, before any request reaches it,
    // now and then fails to render its subscribe dialog (its error
    // boundary catches "Cannot read properties of undefined (reading
    // 'map')"), as a person would see it fail and reload: it is started
    // afresh, up to three times, each said on stderr.
    for (let attempt = 1; ; attempt++) {
      try {
        await page.goto(`${server}/login`);
        await page.fill("#username", user);
        await page.fill("#password", password);
        await page.click('button[type="submit"]');
        await page.waitForURL((u) => !u.pathname.startsWith("/login"));
        await page.getByRole("button", { name: "Subscribe to topic" }).click();
        const dialog = page.getByRole("dialog");
        await dialog.locator("#topic").fill(topic, { timeout: Math.min(timeout, 20000) });
        await dialog.getByRole("button", { name: "Subscribe", exact: true }).click();
        await page.waitForURL((u) => u.pathname === `/${topic}`);
        break;
      } catch (e) {
        if (attempt === 3) throw e;
        log(`the web app did not start (attempt ${attempt}): ${e.message.split("\n")[0]}; starting it again`);
        await page.context().clearCookies();
        await page.evaluate(() => { localStorage.clear(); sessionStorage.clear(); }).catch(() => {});
      }
    }
    await withTimeout(subscribed, timeout, `the web app's subscription to ${topic} did not open`);
    say({ event: "ready" });

    const allCards = () => page.evaluate(cardsOnPage, null).catch((e) => [{ text: `(cannot read the cards: ${e.message})` }]);
    const awaitCard = async (has) => (await page.waitForFunction(cardsOnPage, { has }, { timeout, polling: 100 })).jsonValue();

    const rl = readline.createInterface({ input: process.stdin });
    for await (const line of rl) {
      if (!line.trim()) continue;
      let cmd;
      try {
        cmd = JSON.parse(line);
      } catch (e) {
        say({ ok: false, error: `not a JSON command: ${line}` });
        continue;
      }
      try {
        switch (cmd.op) {
          case "await":
            say({ id: cmd.id, ok: true, card: await awaitCard(cmd.has) });
            break;
          case "tap": {
            // A real click: scrolled into view, the mouse moved there,
            // pressed and released. A card the app drew anew between
            // finding the button and clicking it is found again.
            for (let attempt = 1; ; attempt++) {
              const button = await page.waitForFunction(cardsOnPage, { has: cmd.has, label: cmd.label }, { timeout, polling: 100 });
              try {
                await button.asElement().click();
                break;
              } catch (e) {
                if (attempt >= 3 || !/not attached|detached/i.test(String(e.message))) throw e;
              }
            }
            const done = await page.waitForFunction(cardsOnPage, { has: cmd.has, label: cmd.label, done: true }, { timeout, polling: 100 });
            const shown = (await done.asElement().innerText()).trim();
            say({ id: cmd.id, ok: true, shown, card: await awaitCard(cmd.has) });
            break;
          }
          case "cards":
            say({ id: cmd.id, ok: true, cards: await allCards() });
            break;
          case "quit":
            rl.close();
            break;
          default:
            throw new Error(`no such op: ${cmd.op}`);
        }
      } catch (e) {
        say({ id: cmd.id, ok: false, error: String(e.message || e).split("\n")[0], cards: await allCards() });
      }
    }
  } finally {
    await cleanup();
  }
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

main().then(
  () => process.exit(0),
  (e) => {
    say({ event: "failed", error: String(e.message || e) });
    log(String(e.stack || e));
    process.exit(1);
  }
);
