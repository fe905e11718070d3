import type { ComponentChildren } from 'preact';
import { assetUrl } from '../assets.js';
import { useLang } from '../i18n.js';
import { Layout } from '../layout.js';
import { href, type ShopDetails, type Site } from '../site.js';

/** 404 and error pages in the shop's design; `details` is absent when the shop itself is unknown. */
export function ProblemPage(props: {
  site?: Site;
  details?: ShopDetails;
  status: number;
  title: string;
  message: string;
}) {
  const { site, details } = props;
  const { t } = useLang();
  const body = (
    <section class="problem">
      <p class="status">{props.status}</p>
      <h1>{props.title}</h1>
      <p>{props.message}</p>
      {site ? (
        <p>
          <a class="button" href={href(site, '/')}>
            {t('common.backToShop')}
          </a>
        </p>
      ) : null}
    </section>
  );
  if (site && details)
    return (
      <Layout site={site} details={details} title={props.title} noindex>
        {body}
      </Layout>
    );
  return <BarePage title={props.title}>{body}</BarePage>;
}

/** A page without a shop around it (an address no shop answers to). */
export function BarePage({ title, children }: { title: string; children: ComponentChildren }) {
  const { locale } = useLang();
  return (
    <html lang={locale}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{title}</title>
        <link rel="icon" type="image/svg+xml" href={assetUrl('favicon.svg')} />
        <link rel="stylesheet" href={assetUrl('storefront.css')} />
      </head>
      <body>
        <main id="main">{children}</main>
      </body>
    </html>
  );
}
