/**
 * The browser console at /console/: one page per part of the administration graph, chosen
 * by the URL's hash (#overview, #keys, …). Everything goes to /admin/graphql on this origin.
 */
import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import './console.css';
import { whenSignedOut } from './api';
import { Alerts, Deliveries } from './alerts';
import { SiteDocuments } from './documents';
import { Keys } from './keys';
import { Overview } from './overview';
import { Payments } from './payments';
import { Tokens } from './tokens';

const PAGES = {
  overview: { title: 'Overview', Page: Overview },
  keys: { title: 'Keys', Page: Keys },
  tokens: { title: 'Tokens', Page: Tokens },
  deliveries: { title: 'Webhooks', Page: Deliveries },
  alerts: { title: 'Alerts', Page: Alerts },
  payments: { title: 'Payments', Page: Payments },
  documents: { title: 'Site documents', Page: SiteDocuments },
} as const;

type PageName = keyof typeof PAGES;

function pageOf(hash: string): PageName {
  const name = hash.replace(/^#/, '');
  return name in PAGES ? (name as PageName) : 'overview';
}

/** What the page says once the session has ended. */
function SignedOut(): JSX.Element {
  return (
    <main id="main">
      <h1>StateV gateway console</h1>
      <section aria-labelledby="signed-out-title" className="card">
        <h2 id="signed-out-title">Sign in again</h2>
        <p>
          You are not signed in, or your session ended (after 12 hours without a request, or when every session was
          signed out).
        </p>
        <p>
          For a new sign-in link, run this where the gateway's vault is, then open the link it prints (it works once,
          for 10 minutes):
        </p>
        <pre>
          <code>statev-gateway console</code>
        </pre>
        <p>
          In a checkout of the gateway: <code>npm run cli -- console</code>.
        </p>
      </section>
    </main>
  );
}

function App(): JSX.Element {
  const [page, setPage] = useState<PageName>(pageOf(window.location.hash));
  const [signedOut, setSignedOut] = useState(false);
  useEffect(() => {
    whenSignedOut(() => setSignedOut(true));
    const follow = (): void => setPage(pageOf(window.location.hash));
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  useEffect(() => {
    document.title = `${PAGES[page].title} · StateV gateway console`;
  }, [page]);
  if (signedOut) return <SignedOut />;
  const { Page } = PAGES[page];
  return (
    <>
      <a className="skip" href="#main">
        Skip to the page
      </a>
      <header>
        <p className="brand">StateV gateway console</p>
        <nav aria-label="Console pages">
          <ul>
            {Object.entries(PAGES).map(([name, { title }]) => (
              <li key={name}>
                <a href={`#${name}`} aria-current={name === page ? 'page' : undefined}>
                  {title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        <h1 className="visually-hidden">StateV gateway console: {PAGES[page].title}</h1>
        <Page key={page} />
      </main>
    </>
  );
}

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
