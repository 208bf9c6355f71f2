// The demo chat page: the browser client from `/demo/lattice-realtime.js`, a token from the demo
// backend, recent history, then a subscription recovering from history's cursor (no message
// missed or shown twice), presence for the roster and client events for "typing…". It keeps what
// it received in `window.demo` for the browser tests.
export const DEMO_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lattice realtime demo</title>
<style>
  body { font: 15px/1.4 system-ui, sans-serif; margin: 0; display: grid; grid-template-columns: 1fr 14rem; height: 100vh; }
  main { display: flex; flex-direction: column; padding: 1rem; min-height: 0; }
  aside { border-left: 1px solid #ddd; padding: 1rem; background: #fafafa; }
  #log { flex: 1; overflow-y: auto; list-style: none; padding: 0; margin: 0 0 .5rem; }
  #log li { padding: .15rem 0; } #log b { margin-right: .4rem; } #log small { color: #999; margin-left: .4rem; }
  #typing { color: #888; height: 1.3rem; font-style: italic; }
  form { display: flex; gap: .5rem; } input { flex: 1; padding: .4rem; font: inherit; }
  #state { font-size: 12px; color: #666; } #state.connected { color: #080; }
  #roster { list-style: none; padding: 0; } #roster li::before { content: "● "; color: #0a0; }
</style>
</head>
<body>
<main>
  <div id="state">starting…</div>
  <ul id="log"></ul>
  <div id="typing"></div>
  <form id="send"><input id="text" autocomplete="off" placeholder="Say something" maxlength="500"><button>Send</button></form>
</main>
<aside><h3>Online</h3><ul id="roster"></ul></aside>
<script type="module">
import { connect } from '/demo/lattice-realtime.js';

const channel = 'demo:lobby';
const params = new URLSearchParams(location.search);
const name = params.get('name') || prompt('Your name (letters, digits, . _ -)', 'guest' + Math.floor(Math.random() * 1000)) || 'guest';
const $ = (id) => document.getElementById(id);
const demo = (window.demo = { name, received: [], events: [], states: [], ready: false, error: null });

async function getToken() {
  const res = await fetch('/demo/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
  if (!res.ok) throw new Error('token: ' + res.status);
  return (await res.json()).token;
}

function show(message) {
  demo.received.push({ offset: message.offset, epoch: message.epoch, data: message.data });
  const li = document.createElement('li');
  const who = document.createElement('b');
  who.textContent = (message.data && message.data.from) || '?';
  li.append(who, String((message.data && message.data.text) ?? JSON.stringify(message.data)));
  const at = document.createElement('small');
  at.textContent = '#' + message.offset;
  li.append(at);
  $('log').append(li);
  $('log').scrollTop = $('log').scrollHeight;
}

async function refreshRoster() {
  const { data } = await client.presence.get(channel);
  $('roster').replaceChildren(...data.map((m) => {
    const li = document.createElement('li');
    li.textContent = (m.info && m.info.name) || m.identity;
    return li;
  }));
  demo.roster = data.map((m) => m.identity);
}

const client = connect({ url: 'ws://' + location.host, getToken });
demo.client = client;
client.on('state', ({ state }) => {
  demo.states.push(state);
  $('state').textContent = state + ' as ' + name;
  $('state').className = state;
});
client.on('error', (err) => { demo.error = String(err); });

let typingTimer;
try {
  // History first, then the live stream from history's cursor: nothing missed, nothing twice.
  const recent = await client.history(channel, { last_n: 50 });
  for (const entry of recent.data) show(entry);
  await client.subscribe(channel, {
    recover: { offset: recent.top_offset, epoch: recent.epoch },
    onMessage: show,
    onEvent: (e) => {
      demo.events.push(e);
      $('typing').textContent = e.from.replace(/^ext:/, '') + ' is typing…';
      clearTimeout(typingTimer);
      typingTimer = setTimeout(() => ($('typing').textContent = ''), 2000);
    },
    onPresence: () => refreshRoster().catch(() => {}),
  });
  await client.presence.enter(channel, { info: { name } });
  await refreshRoster();
  demo.ready = true;
} catch (err) {
  demo.error = String(err);
  $('state').textContent = 'error: ' + err;
}

let lastTyping = 0;
$('text').addEventListener('input', () => {
  if (Date.now() - lastTyping < 1500) return;
  lastTyping = Date.now();
  client.publish(channel, { typing: true }).catch(() => {});
});
$('send').addEventListener('submit', async (e) => {
  e.preventDefault();
  const text = $('text').value.trim();
  if (!text) return;
  $('text').value = '';
  await fetch('/demo/messages', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, text }) });
});
</script>
</body>
</html>
`;
