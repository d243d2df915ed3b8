// The console's shell: sign-in, navigation between pages (by the URL's hash) and the one live stream per page.
import { ApiError, get, setToken, token } from './api.js';
import { showActions } from './actions.js';
import { showOverview } from './overview.js';
import { showTimeline } from './timeline.js';
import { showTopic } from './topic.js';
import { showTopics } from './topics.js';

const main = document.getElementById('main');
let session = null;
let closePage = null;

const routes = [
  [/^#\/overview$/, (page) => showOverview(page)],
  [/^#\/timeline$/, (page) => showTimeline(page, null)],
  [/^#\/timeline\/([A-Za-z0-9._-]+)$/, (page, m) => showTimeline(page, m[1])],
  [/^#\/topics$/, (page) => showTopics(page)],
  [/^#\/topic\/([A-Za-z0-9._-]+)$/, (page, m) => showTopic(page, m[1])],
  [/^#\/actions$/, (page) => showActions(page)],
];

async function route() {
  if (closePage) {
    closePage();
    closePage = null;
  }
  if (!session) {
    return;
  }
  const hash = location.hash || '#/overview';
  for (const a of document.querySelectorAll('#nav a')) {
    a.classList.toggle('active', hash.startsWith(a.getAttribute('href')));
  }
  for (const [pattern, show] of routes) {
    const m = hash.match(pattern);
    if (m) {
      // Each page draws into a container of its own: one left behind by a quick move to another page is
      // detached, and whatever it still draws or opens is dropped.
      const page = document.createElement('div');
      main.replaceChildren(page);
      try {
        const close = (await show(page, m)) || null;
        if (page.isConnected) {
          closePage = close;
        } else if (close) {
          close();
        }
      } catch (e) {
        if (e instanceof ApiError && e.status === 401) {
          signedOut();
          return;
        }
        page.append(Object.assign(document.createElement('p'), { className: 'error', textContent: e.message }));
      }
      return;
    }
  }
  location.hash = '#/overview';
}

function signedOut() {
  session = null;
  setToken(null);
  document.getElementById('nav').hidden = true;
  document.getElementById('sign-out').hidden = true;
  document.getElementById('who').textContent = '';
  main.innerHTML = '';
  document.getElementById('sign-in').hidden = false;
}

async function start() {
  const auth = await get('auth');
  if (auth.authentication && !token()) {
    signedOut();
    return;
  }
  try {
    session = await get('session');
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      signedOut();
      document.getElementById('sign-in-error').textContent = 'That token was not accepted.';
      return;
    }
    throw e;
  }
  document.getElementById('sign-in').hidden = true;
  document.getElementById('nav').hidden = false;
  document.getElementById('who').textContent = session.principal + ' · FutureQ ' + session.version;
  document.getElementById('sign-out').hidden = !session.authentication;
  route();
}

document.getElementById('sign-in-form').addEventListener('submit', (e) => {
  e.preventDefault();
  setToken(document.getElementById('token').value.trim());
  document.getElementById('token').value = '';
  document.getElementById('sign-in-error').textContent = '';
  start();
});
document.getElementById('sign-out').addEventListener('click', signedOut);
window.addEventListener('hashchange', route);
start();
