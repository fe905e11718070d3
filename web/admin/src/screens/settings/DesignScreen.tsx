import { useState } from 'react';
import { ApiError, api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';
import { useShop, useShopId } from '../../app/shop';
import { Field, fieldError } from '../../ui/Field';
import { LoadError, Loading, Page } from '../../ui/Page';
import { orNull, type Settings, SettingsSection, useSettingSave, useSettings } from './section';
import './settings.css';

type Design = Settings['design'];
type Flags = Design['design'];
type SocialLink = Design['links']['socialLinks'][number];
type Platform = SocialLink['platform'];

/** The colours of the design, in the order the form shows them. */
const colorFields = [
  ['primaryColor', 'Primary colour'],
  ['primaryColorAccent', 'Primary accent'],
  ['backgroundColor', 'Background'],
  ['secondaryColor', 'Secondary colour'],
  ['primaryTextColor', 'Text'],
  ['secondaryTextColor', 'Secondary text'],
] as const satisfies readonly (readonly [keyof Flags, string])[];

/** The storefront switches; the check below fails to compile when the API adds one. */
const flagFields = [
  ['darkMode', 'Dark mode'],
  ['disableBusinessName', 'Hide the shop name'],
  ['disableBusinessLogo', 'Hide the logo'],
  ['disableSearchBar', 'Hide the search bar'],
  ['centerProductTitle', 'Centre product titles'],
  ['disableReviews', 'Hide reviews'],
  ['disableProductsSold', 'Hide products sold'],
  ['hideOutOfStockProducts', 'Hide out-of-stock products'],
  ['hideProductStock', 'Hide stock counts'],
  ['disableShadows', 'No shadows'],
  ['disableSupport', 'Hide support'],
  ['disableSnow', 'No snow'],
] as const satisfies readonly (readonly [keyof Flags, string])[];
type Covered = (typeof colorFields)[number][0] | (typeof flagFields)[number][0] | 'fontLink';
const everyFlagListed: Exclude<keyof Flags, Covered> extends never ? true : false = true;
void everyFlagListed;

const platforms = [
  ['website', 'Website'],
  ['discord', 'Discord'],
  ['telegram', 'Telegram'],
  ['youtube', 'YouTube'],
  ['twitter', 'X (Twitter)'],
  ['instagram', 'Instagram'],
  ['tiktok', 'TikTok'],
  ['email', 'E-mail'],
  ['other', 'Other'],
] as const satisfies readonly (readonly [Platform, string])[];
const everyPlatformListed: Exclude<Platform, (typeof platforms)[number][0]> extends never ? true : false = true;
void everyPlatformListed;

const path = (shopId: number) => ({ params: { path: { shopId } } });

export default function DesignScreen() {
  const settings = useSettings();
  const { shop } = useShop();
  // Bumped after every save: the preview frame is made anew and loads the storefront again.
  const [version, setVersion] = useState(0);
  const saved = () => setVersion((v) => v + 1);
  return (
    <Page title="Design">
      {settings.isLoading ? <Loading /> : null}
      {settings.error ? <LoadError error={settings.error} retry={() => settings.refetch()} /> : null}
      {settings.data ? (
        <div className="settings-design">
          <div className="stack">
            <ColoursSection design={settings.data.design} onSaved={saved} />
            <ImagesSection design={settings.data.design} onSaved={saved} />
            <StorefrontSection design={settings.data.design} onSaved={saved} />
            <LinksSection design={settings.data.design} onSaved={saved} />
            <SeoSection design={settings.data.design} onSaved={saved} />
            <WidgetsSection design={settings.data.design} onSaved={saved} />
          </div>
          <section className="card stack settings-preview" aria-labelledby="design-preview-title">
            <div className="row">
              <h2 id="design-preview-title" className="settings-section-title grow">
                Preview
              </h2>
              <button type="button" className="btn" onClick={saved}>
                Reload preview
              </button>
              {shop ? (
                <a className="btn" href={`/s/${shop.subdomain}/`} target="_blank" rel="noreferrer">
                  Open storefront
                </a>
              ) : null}
            </div>
            {shop ? (
              <iframe key={version} title="Storefront preview" src={`/s/${shop.subdomain}/`} />
            ) : (
              <Loading label="Loading the preview…" />
            )}
          </section>
        </div>
      ) : null}
    </Page>
  );
}

type SectionProps = { design: Design; onSaved: () => void };

function ColoursSection({ design, onSaved }: SectionProps) {
  const shopId = useShopId();
  const [flags, setFlags] = useState<Flags>(design.design);
  const [fontLink, setFontLink] = useState(design.design.fontLink ?? '');
  type Body = paths['/self/{shopId}/settings/design']['put']['requestBody']['content']['application/json'];
  const save = useSettingSave(
    (body: Body) => unwrap(api.PUT('/self/{shopId}/settings/design', { ...path(shopId), body })),
    'Design saved',
    onSaved,
  );
  const set = <K extends keyof Flags>(name: K, value: Flags[K]) => setFlags((all) => ({ ...all, [name]: value }));
  return (
    <SettingsSection
      title="Colours and display"
      mutation={save}
      fields={[...colorFields.map(([name]) => name), ...flagFields.map(([name]) => name), 'fontLink']}
      onSubmit={() => save.mutate({ ...flags, fontLink: orNull(fontLink.trim()) })}
    >
      <div className="settings-colors">
        {colorFields.map(([name, label]) => (
          <Field key={name} label={label} error={fieldError(save.error, name)}>
            {(ids) => (
              <div className="settings-color">
                <input
                  type="color"
                  className="input"
                  aria-label={`${label} picker`}
                  value={/^#[0-9a-fA-F]{6}$/.test(flags[name]) ? flags[name] : '#000000'}
                  onChange={(e) => set(name, e.target.value)}
                />
                <input
                  {...ids}
                  className="input"
                  value={flags[name]}
                  maxLength={7}
                  spellCheck={false}
                  onChange={(e) => set(name, e.target.value)}
                />
              </div>
            )}
          </Field>
        ))}
      </div>
      <div className="settings-flags">
        {flagFields.map(([name, label]) => (
          <label key={name} className="check">
            <input type="checkbox" checked={flags[name]} onChange={(e) => set(name, e.target.checked)} />
            {label}
          </label>
        ))}
      </div>
      <Field
        label="Font stylesheet"
        error={fieldError(save.error, 'fontLink')}
        hint="An https link to a web font's CSS (e.g. from Google Fonts). Leave empty for the default font."
      >
        {(ids) => (
          <input
            {...ids}
            className="input"
            type="url"
            value={fontLink}
            placeholder="https://fonts.googleapis.com/css2?family=Inter"
            onChange={(e) => setFontLink(e.target.value)}
          />
        )}
      </Field>
    </SettingsSection>
  );
}

type UploadPath =
  | '/self/{shopId}/settings/design/logo'
  | '/self/{shopId}/settings/design/storefront/logo'
  | '/self/{shopId}/customization/seo/image'
  | '/self/{shopId}/customization/seo/favicon';

/** Sends one image as `multipart/form-data` with its `file` part. */
function uploadImage(shopId: number, to: UploadPath, file: File) {
  return unwrap(
    api.POST(to, {
      ...path(shopId),
      // The typed body names the part; the serializer sends the file itself.
      body: { file: file.name },
      bodySerializer: () => {
        const form = new FormData();
        form.append('file', file);
        return form;
      },
    }),
  );
}

function ImagesSection({ design, onSaved }: SectionProps) {
  const images = [
    { to: '/self/{shopId}/settings/design/logo', label: 'Logo', url: design.logoUrl, accept: 'image/*' },
    {
      to: '/self/{shopId}/settings/design/storefront/logo',
      label: 'Storefront image',
      url: design.storefront.imageUrl,
      accept: 'image/*',
    },
    { to: '/self/{shopId}/customization/seo/image', label: 'SEO image', url: design.seo.imageUrl, accept: 'image/*' },
    {
      to: '/self/{shopId}/customization/seo/favicon',
      label: 'Favicon',
      url: design.seo.faviconUrl,
      accept: 'image/png,image/x-icon,image/vnd.microsoft.icon,image/svg+xml,image/*',
    },
  ] as const;
  return (
    <section className="card stack" aria-labelledby="design-images-title">
      <h2 id="design-images-title" className="settings-section-title">
        Images
      </h2>
      <p className="muted small">
        Each image is uploaded as soon as you pick it (up to 5 MiB); it replaces the previous one.
      </p>
      {images.map((image) => (
        <ImageUpload key={image.to} {...image} onSaved={onSaved} />
      ))}
    </section>
  );
}

function ImageUpload(props: {
  to: UploadPath;
  label: string;
  url: string | null;
  accept: string;
  onSaved: () => void;
}) {
  const shopId = useShopId();
  const [inputKey, setInputKey] = useState(0);
  const upload = useSettingSave(
    (file: File) => uploadImage(shopId, props.to, file),
    `${props.label} uploaded`,
    props.onSaved,
  );
  const error =
    upload.error instanceof ApiError ? (upload.error.fields.file ?? upload.error.message) : upload.error?.message;
  return (
    <div className="row">
      {props.url ? (
        <img className="settings-image" src={props.url} alt={`Current ${props.label.toLowerCase()}`} />
      ) : (
        <span className="muted small">No {props.label.toLowerCase()}</span>
      )}
      <Field label={props.label} error={error} className="grow">
        {(ids) => (
          <input
            {...ids}
            key={inputKey}
            type="file"
            className="input"
            accept={props.accept}
            disabled={upload.isPending}
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (file) upload.mutate(file, { onSettled: () => setInputKey((k) => k + 1) });
            }}
          />
        )}
      </Field>
      {upload.isPending ? <span role="status">Uploading…</span> : null}
    </div>
  );
}

function StorefrontSection({ design, onSaved }: SectionProps) {
  const shopId = useShopId();
  const s = design.storefront;
  const [title, setTitle] = useState(s.title ?? '');
  const [description, setDescription] = useState(s.description ?? '');
  const [buttonText, setButtonText] = useState(s.buttonText ?? '');
  const [switches, setSwitches] = useState({
    disableTitle: s.disableTitle,
    disableDescription: s.disableDescription,
    disableButton: s.disableButton,
  });
  type Body = paths['/self/{shopId}/settings/design/storefront']['put']['requestBody']['content']['application/json'];
  const save = useSettingSave(
    (body: Body) => unwrap(api.PUT('/self/{shopId}/settings/design/storefront', { ...path(shopId), body })),
    'Storefront texts saved',
    onSaved,
  );
  const switchLabels = [
    ['disableTitle', 'Hide the title'],
    ['disableDescription', 'Hide the description'],
    ['disableButton', 'Hide the button'],
  ] as const;
  return (
    <SettingsSection
      title="Storefront header"
      description="The title, text and button at the top of the storefront's home page."
      mutation={save}
      fields={['title', 'description', 'buttonText', 'disableTitle', 'disableDescription', 'disableButton']}
      onSubmit={() =>
        save.mutate({
          title: orNull(title),
          description: orNull(description),
          buttonText: orNull(buttonText),
          ...switches,
        })
      }
    >
      <Field label="Title" error={fieldError(save.error, 'title')}>
        {(ids) => (
          <input {...ids} className="input" value={title} maxLength={200} onChange={(e) => setTitle(e.target.value)} />
        )}
      </Field>
      <Field label="Description" error={fieldError(save.error, 'description')}>
        {(ids) => (
          <textarea
            {...ids}
            className="input"
            value={description}
            maxLength={5000}
            onChange={(e) => setDescription(e.target.value)}
          />
        )}
      </Field>
      <Field label="Button text" error={fieldError(save.error, 'buttonText')}>
        {(ids) => (
          <input
            {...ids}
            className="input"
            value={buttonText}
            maxLength={64}
            onChange={(e) => setButtonText(e.target.value)}
          />
        )}
      </Field>
      <div className="settings-flags">
        {switchLabels.map(([name, label]) => (
          <label key={name} className="check">
            <input
              type="checkbox"
              checked={switches[name]}
              onChange={(e) => setSwitches((all) => ({ ...all, [name]: e.target.checked }))}
            />
            {label}
          </label>
        ))}
      </div>
    </SettingsSection>
  );
}

function LinksSection({ design, onSaved }: SectionProps) {
  const shopId = useShopId();
  const [links, setLinks] = useState<SocialLink[]>(design.links.socialLinks);
  const save = useSettingSave(
    (socialLinks: SocialLink[]) =>
      unwrap(api.PUT('/self/{shopId}/settings/design/links', { ...path(shopId), body: { socialLinks } })),
    'Links saved',
    onSaved,
  );
  const update = (index: number, change: Partial<SocialLink>) =>
    setLinks((all) => all.map((link, i) => (i === index ? { ...link, ...change } : link)));
  const move = (index: number, by: number) =>
    setLinks((all) => {
      const next = [...all];
      const [item] = next.splice(index, 1);
      if (item) next.splice(index + by, 0, item);
      return next;
    });
  return (
    <SettingsSection
      title="Social links"
      description="Shown in the storefront's footer, in this order (up to 20)."
      mutation={save}
      fields={['socialLinks', ...links.flatMap((_, i) => [`socialLinks[${i}].platform`, `socialLinks[${i}].link`])]}
      onSubmit={() => save.mutate(links.map((l) => ({ platform: l.platform, link: l.link.trim() })))}
      extra={
        <button
          type="button"
          className="btn"
          disabled={links.length >= 20}
          onClick={() => setLinks((all) => [...all, { platform: 'website', link: '' }])}
        >
          Add link
        </button>
      }
    >
      {links.length === 0 ? <p className="muted small">No links.</p> : null}
      {fieldError(save.error, 'socialLinks') ? (
        <p className="field-error">{fieldError(save.error, 'socialLinks')}</p>
      ) : null}
      {links.map((link, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows have no id; their place is what identifies them
        <div key={index} className="settings-link-row">
          <Field label={`Link ${index + 1} platform`} error={fieldError(save.error, `socialLinks[${index}].platform`)}>
            {(ids) => (
              <select
                {...ids}
                className="input"
                value={link.platform}
                onChange={(e) => update(index, { platform: e.target.value as Platform })}
              >
                {platforms.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label={`Link ${index + 1} address`} error={fieldError(save.error, `socialLinks[${index}].link`)}>
            {(ids) => (
              <input
                {...ids}
                className="input"
                value={link.link}
                type={link.platform === 'email' ? 'email' : 'url'}
                placeholder={link.platform === 'email' ? 'hello@example.com' : 'https://'}
                onChange={(e) => update(index, { link: e.target.value })}
              />
            )}
          </Field>
          <div className="row">
            <button
              type="button"
              className="btn btn-ghost"
              aria-label={`Move link ${index + 1} up`}
              disabled={index === 0}
              onClick={() => move(index, -1)}
            >
              ↑
            </button>
            <button
              type="button"
              className="btn btn-ghost"
              aria-label={`Move link ${index + 1} down`}
              disabled={index === links.length - 1}
              onClick={() => move(index, 1)}
            >
              ↓
            </button>
            <button
              type="button"
              className="btn btn-ghost"
              aria-label={`Remove link ${index + 1}`}
              onClick={() => setLinks((all) => all.filter((_, i) => i !== index))}
            >
              ✕
            </button>
          </div>
        </div>
      ))}
    </SettingsSection>
  );
}

function SeoSection({ design, onSaved }: SectionProps) {
  const shopId = useShopId();
  const [metaTitle, setMetaTitle] = useState(design.seo.metaTitle ?? '');
  const [metaDescription, setMetaDescription] = useState(design.seo.metaDescription ?? '');
  type Body = paths['/self/{shopId}/customization/seo']['put']['requestBody']['content']['application/json'];
  const save = useSettingSave(
    (body: Body) => unwrap(api.PUT('/self/{shopId}/customization/seo', { ...path(shopId), body })),
    'SEO saved',
    onSaved,
  );
  return (
    <SettingsSection
      title="Search engines"
      description="The title and description search engines and link previews show. The SEO image and favicon are under Images."
      mutation={save}
      fields={['metaTitle', 'metaDescription']}
      onSubmit={() => save.mutate({ metaTitle: orNull(metaTitle), metaDescription: orNull(metaDescription) })}
    >
      <Field label="Meta title" error={fieldError(save.error, 'metaTitle')} hint={`${metaTitle.length} / 70`}>
        {(ids) => (
          <input
            {...ids}
            className="input"
            value={metaTitle}
            maxLength={70}
            onChange={(e) => setMetaTitle(e.target.value)}
          />
        )}
      </Field>
      <Field
        label="Meta description"
        error={fieldError(save.error, 'metaDescription')}
        hint={`${metaDescription.length} / 160`}
      >
        {(ids) => (
          <textarea
            {...ids}
            className="input"
            value={metaDescription}
            maxLength={160}
            onChange={(e) => setMetaDescription(e.target.value)}
          />
        )}
      </Field>
    </SettingsSection>
  );
}

function WidgetsSection({ design, onSaved }: SectionProps) {
  const shopId = useShopId();
  const w = design.widgets;
  const [keys, setKeys] = useState({
    crispKey: w.crispKey ?? '',
    googleAnalyticsKey: w.googleAnalyticsKey ?? '',
    hotjarKey: w.hotjarKey ?? '',
    intercomKey: w.intercomKey ?? '',
  });
  const labels = [
    ['crispKey', 'Crisp website ID'],
    ['googleAnalyticsKey', 'Google Analytics ID'],
    ['hotjarKey', 'Hotjar site ID'],
    ['intercomKey', 'Intercom app ID'],
  ] as const;
  const save = useSettingSave(
    (body: typeof keys) =>
      unwrap(
        api.PUT('/self/{shopId}/customization/widgets', {
          ...path(shopId),
          body: {
            crispKey: orNull(body.crispKey.trim()),
            googleAnalyticsKey: orNull(body.googleAnalyticsKey.trim()),
            hotjarKey: orNull(body.hotjarKey.trim()),
            intercomKey: orNull(body.intercomKey.trim()),
          },
        }),
      ),
    'Widgets saved',
    onSaved,
  );
  return (
    <SettingsSection
      title="Widgets"
      description="Chat and analytics IDs for a storefront built elsewhere: the public API hands them out. shopd's own storefront loads no third-party scripts, so these change nothing on its pages."
      mutation={save}
      fields={labels.map(([name]) => name)}
      onSubmit={() => save.mutate(keys)}
    >
      {labels.map(([name, label]) => (
        <Field key={name} label={label} error={fieldError(save.error, name)}>
          {(ids) => (
            <input
              {...ids}
              className="input"
              value={keys[name]}
              maxLength={200}
              spellCheck={false}
              onChange={(e) => setKeys((all) => ({ ...all, [name]: e.target.value }))}
            />
          )}
        </Field>
      ))}
    </SettingsSection>
  );
}
