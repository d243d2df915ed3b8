// A topic's page: its groups, its live timeline and its pending messages in due order, with the admin actions
// the token may take (the others are not shown).
import { del, get, post } from './api.js';
import { liveTimeline } from './timeline.js';
import { act, age, card, el, num, table, time, toast } from './ui.js';
import { parseWhen } from './when.js';

export async function showTopic(main, name) {
  const row = (await get('topics')).topics.find((t) => t.name === name);
  main.append(el('h1', {}, 'Topic ', el('code', {}, name)));
  if (!row) {
    main.append(el('p', { className: 'error', id: 'topic-missing' }, 'This token sees no topic named ' + name + '.'));
    return null;
  }
  const info = el('div', { id: 'topic-info' });
  const timelineBox = el('div', { id: 'timeline' });
  const browse = el('div', { id: 'browse' });
  main.append(info, el('h2', {}, 'Timeline'), timelineBox);
  if (row.admin) {
    row.changed = () => renderStats(info, name).catch(() => {});
    await renderStats(info, name);
    main.append(el('h2', {}, 'Pending messages, in due order'), browse);
    renderBrowse(browse, name, row);
    main.append(el('h2', {}, 'Topic actions'), el('div', { className: 'controls' },
      el('button', { type: 'button', id: 'purge-topic', className: 'danger', onclick: () => act(
        'Purge topic ' + name + '? Every message stored before now is deleted; groups stay.',
        () => post('topics/' + name + '/purge'), (r) => 'purged ' + r.removed + ' messages')
        .then((r) => r && (renderBrowse(browse, name, row), row.changed())) }, 'Purge topic'),
      el('button', { type: 'button', id: 'delete-topic', className: 'danger', onclick: () => act(
        'Delete topic ' + name + ' with its messages and groups?', () => del('topics/' + name),
        (r) => 'deleted, with ' + r.removed + ' messages').then((r) => { if (r) { location.hash = '#/topics'; } }) },
      'Delete topic')));
  } else {
    info.append(el('div', { className: 'cards' }, card('Pending', num(row.pending)),
      card('Groups', (row.groups || []).join(', ') || '-')),
    el('p', { className: 'muted', id: 'no-admin' }, 'This token may not administer this topic: groups, messages '
      + 'and actions need the admin permission.'));
  }
  return liveTimeline(timelineBox, name);
}

async function renderStats(info, name) {
  const s = await get('topics/' + name);
  info.innerHTML = '';
  info.append(el('div', { className: 'cards' },
    card('Pending', num(s.pending), 'topic-pending'), card('Due now', num(s.dueNow)),
    card('Next due', time(s.nextDueMs)), card('Oldest due, waiting', age(s.dueNow > 0 ? s.oldestDueAgeMs : 0)),
    s.deadLetterTopic ? el('div', { className: 'card' }, el('div', { className: 'label' }, 'Dead letters'),
      el('div', { className: 'value' }, s.deadLetters > 0 ? el('a', { href: '#/topic/' + s.deadLetterTopic,
        id: 'dead-letters' }, num(s.deadLetters)) : '0')) : ''),
  el('h2', {}, 'Groups'),
  s.groups.length === 0 ? el('p', { className: 'muted' }, 'No groups yet.') : table('groups', ['Group',
    { label: 'Consumers', num: true }, { label: 'In flight', num: true }, { label: 'Lag', num: true },
    'Oldest unacked', 'Lateness p99', ''], s.groups.map((g) => el('tr', { 'data-group': g.name },
    el('td', {}, g.name), el('td', { className: 'num' }, num(g.consumers)),
    el('td', { className: 'num' }, num(g.inFlight)), el('td', { className: 'num' }, num(g.lag)),
    el('td', {}, age(g.oldestUnackedDueAgeMs)), el('td', {}, g.deliveries > 0 ? (g.latenessP99Us / 1000).toFixed(1)
      + ' ms' : '-'),
    el('td', {}, el('button', { type: 'button', className: 'delete-group', onclick: () => act(
      'Delete group ' + g.name + ' of ' + name + '? It forgets its acks; its consumers are ended.',
      () => del('topics/' + name + '/groups/' + g.name), () => 'group ' + g.name + ' deleted')
      .then((r) => r && renderStats(info, name)) }, 'Delete'))))));
}

function renderBrowse(box, name, row, pageToken, payloads) {
  box.innerHTML = '';
  const withPayload = el('input', { type: 'checkbox', id: 'show-payloads', checked: payloads,
    onchange: (e) => renderBrowse(box, name, row, pageToken, e.target.checked) });
  box.append(el('label', {}, withPayload, ' show payload previews'));
  const params = new URLSearchParams({ pageSize: '50', payload: payloads ? 'true' : 'false' });
  if (pageToken) {
    params.set('pageToken', pageToken);
  }
  get('topics/' + name + '/messages?' + params).then((page) => {
    box.append(table('messages', ['Id', 'Key', 'Due', { label: 'Bytes', num: true }, 'Headers', 'Payload',
      'Move to (30s, 5m, 2h, or a date)', ''], page.messages.map((m) => messageRow(box, name, row, m, payloads))));
    if (page.messages.length === 0) {
      box.append(el('p', { className: 'muted', id: 'no-messages' }, 'No pending messages.'));
    }
    if (page.nextPageToken) {
      box.append(el('button', { type: 'button', id: 'next-page',
        onclick: () => renderBrowse(box, name, row, page.nextPageToken, payloads) }, 'Next page'));
    }
  }, (e) => box.append(el('p', { className: 'error' }, e.message)));
}

function messageRow(box, name, row, m, payloads) {
  const payloadCell = el('td', {}, payloads ? payloadOf(m) : el('button', { type: 'button', className: 'preview',
    onclick: async () => {
      try {
        const full = await get('topics/' + name + '/messages/' + m.id);
        payloadCell.innerHTML = '';
        payloadCell.append(payloadOf(full));
      } catch (e) {
        toast(e.message, true);
      }
    } }, 'Read'));
  const to = el('input', { type: 'text', className: 'reschedule-at', size: '10', placeholder: '30s' });
  const refresh = () => {
    renderBrowse(box, name, row, null, payloads);
    row.changed();
  };
  const move = (when) => act('Move message ' + (m.key || m.id) + ' of ' + name + ' to ' + (when.atMs
    ? new Date(when.atMs).toLocaleString() : when.delayMs ? 'in ' + when.delayMs / 1000 + ' s' : 'now') + '?',
  () => post('topics/' + name + '/reschedule', Object.assign({ id: m.id }, when)),
  (r) => 'moved: due ' + new Date(r.dueMs).toLocaleString()).then((r) => r && refresh());
  return el('tr', { 'data-id': m.id, 'data-key': m.key, 'data-due-ms': m.dueMs },
    el('td', {}, el('code', {}, m.id)), el('td', {}, m.key || '-'), el('td', {}, time(m.dueMs)),
    el('td', { className: 'num' }, num(m.size)),
    el('td', {}, Object.entries(m.headers).map(([k, v]) => k + '=' + v).join(', ') || '-'), payloadCell,
    el('td', {}, to, el('button', { type: 'button', className: 'reschedule-to', onclick: () => {
      try {
        move(parseWhen(to.value));
      } catch (e) {
        toast(e.message, true);
      }
    } }, 'Move'), el('button', { type: 'button', className: 'reschedule-now', onclick: () => move({}) }, 'Now')),
    el('td', {}, row.produce && m.key ? el('button', { type: 'button', className: 'cancel', onclick: () => act(
      'Cancel message ' + m.key + ' of ' + name + '?', () => post('topics/' + name + '/cancel', { key: m.key }),
      (r) => r.existed ? 'cancelled' : 'it was no longer pending').then((r) => r && refresh()) }, 'Cancel') : ''));
}

function payloadOf(m) {
  if (m.payloadText !== undefined) {
    return el('pre', { className: 'payload' }, m.payloadText + (m.payloadTruncated ? ' …' : ''));
  }
  if (m.payloadBase64 !== undefined) {
    return el('pre', { className: 'payload' }, 'base64: ' + m.payloadBase64 + (m.payloadTruncated ? ' …' : ''));
  }
  return el('span', { className: 'muted' }, '(empty)');
}
