/** Overview: each character's budget now and over the last hour, and the cache's hit ratio. */
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { Message, useQuery } from './ui';

interface Sample {
  at: string;
  usedInWindow: number;
  upstream429s: number;
  queued: number;
}

interface Budget {
  character: string;
  limit: number;
  windowSeconds: number;
  usedInWindow: number;
  upstream429s: number;
  queued: number;
  history: Sample[];
}

interface OverviewData {
  keyBudgets: Budget[];
  cacheSummary: { hits: number; misses: number; stale: number; hitRatio: number | null };
}

const OVERVIEW = `query Overview { keyBudgets { character limit windowSeconds usedInWindow upstream429s queued history { at usedInWindow upstream429s queued } } cacheSummary { hits misses stale hitRatio } }`;

/** One character's last hour as a line chart (uPlot, drawn on a canvas; the numbers are in the table beside it). */
function BudgetChart({ budget }: { budget: Budget }): JSX.Element {
  const box = useRef<HTMLDivElement>(null);
  // Drawn once on screen: with 50 characters only the visible charts cost anything at first.
  const [visible, setVisible] = useState(false);
  useEffect(() => {
    const element = box.current;
    if (!element || visible) return undefined;
    if (typeof IntersectionObserver === 'undefined') {
      setVisible(true);
      return undefined;
    }
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) setVisible(true);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [visible]);
  useEffect(() => {
    const element = box.current;
    if (!element || !visible) return undefined;
    const points = budget.history;
    const data: uPlot.AlignedData = [
      points.map((point) => Date.parse(point.at) / 1000),
      points.map((point) => point.usedInWindow),
      points.map((point) => point.queued),
      points.map((point) => point.upstream429s),
    ];
    const width = Math.max(240, Math.min(640, element.clientWidth || 320));
    const now = Date.now() / 1000;
    const chart = new uPlot(
      {
        width,
        height: 160,
        series: [
          {},
          { label: 'requests in window', stroke: '#1d4ed8', width: 2 },
          { label: 'queued reads', stroke: '#b45309', width: 2 },
          { label: '429s', stroke: '#b91c1c', width: 2 },
        ],
        // The last hour on the x axis, from 0 on the y axis (at least 0..10), however few samples there are yet.
        scales: {
          x: { time: true, range: (): uPlot.Range.MinMax => [now - 3600, now] },
          y: { range: (_chart, _min, max): uPlot.Range.MinMax => [0, Math.max(10, max ?? 0)] },
        },
        axes: [{}, { label: 'count' }],
      },
      data,
      element,
    );
    return () => chart.destroy();
  }, [budget, visible]);
  return (
    <div
      ref={box}
      className="chart"
      role="img"
      aria-label={`The last hour of ${budget.character}'s budget: requests in the window, queued reads and 429 answers, one sample a minute.`}
    />
  );
}

/** The overview page. */
export function Overview(): JSX.Element {
  const { data, error, reload } = useQuery<OverviewData>(OVERVIEW);
  useEffect(() => {
    const timer = setInterval(() => void reload(), 10_000);
    return () => clearInterval(timer);
  }, [reload]);
  const cache = data?.cacheSummary;
  return (
    <section aria-labelledby="overview-title">
      <h2 id="overview-title">Overview</h2>
      <Message text={error} error />
      {cache && (
        <p id="cache-ratio">
          Cache hit ratio:{' '}
          <strong>{cache.hitRatio === null ? 'no lookups yet' : `${Math.round(cache.hitRatio * 100)} %`}</strong> (
          {cache.hits} hits, {cache.misses} misses, {cache.stale} stale)
        </p>
      )}
      {data && data.keyBudgets.length === 0 && <p>The vault holds no key yet: add one on the Keys page.</p>}
      <div className="cards">
        {data?.keyBudgets.map((budget) => (
          <article key={budget.character} className="card budget" aria-labelledby={`budget-${budget.character}`}>
            <h3 id={`budget-${budget.character}`}>{budget.character}</h3>
            <table>
              <caption className="visually-hidden">{budget.character}'s budget now</caption>
              <tbody>
                <tr>
                  <th scope="row">Requests in window</th>
                  <td>
                    {budget.limit === 0
                      ? `${budget.usedInWindow} (no limit)`
                      : `${budget.usedInWindow} of ${budget.limit} per ${budget.windowSeconds} s`}
                  </td>
                </tr>
                <tr>
                  <th scope="row">Upstream 429s</th>
                  <td>{budget.upstream429s}</td>
                </tr>
                <tr>
                  <th scope="row">Queued reads</th>
                  <td>{budget.queued}</td>
                </tr>
              </tbody>
            </table>
            <BudgetChart budget={budget} />
          </article>
        ))}
      </div>
    </section>
  );
}
