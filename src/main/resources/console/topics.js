// The Topics page: each topic the token sees, with pending, next due, groups and lag.
import { get } from './api.js';
import { el, num, table, time } from './ui.js';

export async function showTopics(main) {
  const list = await get('topics');
  main.append(el('h1', {}, 'Topics'),
    list.topics.length === 0 ? el('p', { className: 'muted', id: 'no-topics' }, 'No topics yet: publish a message '
      + '(bin/futureq publish --topic reminders --delay 30s "hello").') : '',
    table('topics', ['Topic', { label: 'Pending', num: true }, 'Next due', { label: 'Due next minute', num: true },
      { label: 'Overdue', num: true }, 'Groups', { label: 'Max lag', num: true }],
    list.topics.map((t) => el('tr', { 'data-topic': t.name },
      el('td', {}, el('a', { href: '#/topic/' + t.name }, t.name)),
      el('td', { className: 'num' }, num(t.pending)), el('td', {}, time(t.nextDueMs)),
      el('td', { className: 'num' }, num(t.dueNextMinute)), el('td', { className: 'num' }, num(t.overdue)),
      el('td', {}, (t.groups || []).join(', ') || '-'), el('td', { className: 'num' }, t.admin ? num(t.lag) : '-')))));
}
