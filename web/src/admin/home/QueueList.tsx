import { Link } from 'react-router-dom';
import type { Overview } from './overview';
import { QUEUES } from './queues';

/** The work waiting for someone, each queue a link to where it is done; whatever the period. */
export function QueueList({ queues }: { queues: Overview['queues'] }) {
  const waiting = QUEUES.filter((queue) => queues[queue.key] > 0);
  return (
    <section aria-labelledby="home-queues">
      <h2 id="home-queues">Waiting for you</h2>
      {waiting.length === 0 ? (
        <p className="state state-empty">Nothing is waiting: no application, tax form or flagged conversion to decide, and every webhook delivers.</p>
      ) : (
        <ul className="queues">
          {waiting.map((queue) => (
            <li key={queue.key}>
              <Link to={queue.to}>{queue.words(queues[queue.key])}</Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
