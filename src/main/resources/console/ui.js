// Small DOM helpers shared by the pages.
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) {
      continue;
    }
    if (k.startsWith('on')) {
      node.addEventListener(k.slice(2), v);
    } else if (k === 'className') {
      node.className = v;
    } else {
      node.setAttribute(k, v === true ? '' : v);
    }
  }
  for (const c of children.flat()) {
    if (c !== undefined && c !== null && c !== false) {
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
  }
  return node;
}

export function table(id, head, rows) {
  return el('table', { id }, el('thead', {}, el('tr', {}, head.map((h) => el('th', { className: h.num ? 'num' : '' },
    h.label || h)))), el('tbody', {}, rows));
}

export function num(n) {
  return n === null || n === undefined ? '-' : Number(n).toLocaleString();
}

export function time(ms) {
  return ms === null || ms === undefined || ms === 0 ? '-' : new Date(ms).toLocaleString();
}

export function age(ms) {
  if (ms === null || ms === undefined || ms <= 0) {
    return '-';
  }
  return ms < 60000 ? (ms / 1000).toFixed(1) + ' s' : ms < 3600000 ? (ms / 60000).toFixed(1) + ' min'
    : (ms / 3600000).toFixed(1) + ' h';
}

export function card(label, value, id) {
  return el('div', { className: 'card', id }, el('div', { className: 'label' }, label),
    el('div', { className: 'value' }, value));
}

/** Asks before an action: resolves true when confirmed. */
export function confirmAction(text) {
  const dialog = document.getElementById('confirm');
  document.getElementById('confirm-text').textContent = text;
  return new Promise((resolve) => {
    const yes = document.getElementById('confirm-yes');
    const no = document.getElementById('confirm-no');
    const done = (answer) => {
      yes.onclick = null;
      no.onclick = null;
      dialog.close();
      resolve(answer);
    };
    yes.onclick = () => done(true);
    no.onclick = () => done(false);
    dialog.showModal();
  });
}

let toastTimer = null;
export function toast(text, failed) {
  const t = document.getElementById('toast');
  t.textContent = text;
  t.className = 'shown' + (failed ? ' failed' : '');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.className = ''; }, 4000);
}

/** Runs an action after confirmation; says how it went. Resolves to its result, or null. */
export async function act(question, action, success) {
  if (!(await confirmAction(question))) {
    return null;
  }
  try {
    const result = await action();
    toast(success(result));
    return result;
  } catch (e) {
    toast(e.message, true);
    return null;
  }
}
