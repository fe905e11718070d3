import { useMemo, useState } from 'react';
import { ApiError, api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';
import { useShop, useShopId } from '../../app/shop';
import { Field, fieldError } from '../../ui/Field';
import { LoadError, Loading, Page } from '../../ui/Page';
import {
  colorFields,
  type Design,
  type DesignDraft,
  draftChanges,
  draftOf,
  type Flags,
  flagFields,
  type HeaderDraft,
  headerSwitches,
} from './design-draft';
import { StorefrontPreview } from './design-preview';
import { orNull, SettingsSection, useSettingSave, useSettings } from './section';
import './settings.css';

type SocialLink = Design['links']['socialLinks'][number];
type Platform = SocialLink['platform'];

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
  return (
    <Page title="Design">
      {settings.isLoading ? <Loading /> : null}
      {settings.error ? <LoadError error={settings.error} retry={() => settings.refetch()} /> : null}
      {settings.data ? <DesignEditor design={settings.data.design} /> : null}
    </Page>
  );
}

/** The sections and the preview; the colours and the storefront header are edited here so the preview can show them unsaved. */
function DesignEditor({ design }: { design: Design }) {
  const { shop } = useShop();
  // Bumped after every save: the preview frame is made anew and loads the storefront again.
  const [version, setVersion] = useState(0);
  const saved = () => setVersion((v) => v + 1);
  const [flags, setFlags] = useState<Flags>(design.design);
  const [fontLink, setFontLink] = useState(() => draftOf(design).fontLink);
  const [header, setHeader] = useState(() => draftOf(design).header);
  const draft = useMemo<DesignDraft>(() => ({ flags, fontLink, header }), [flags, fontLink, header]);
  return (
    <div className="settings-design">
      <div className="stack">
        <ColoursSection flags={flags} onFlags={setFlags} fontLink={fontLink} onFontLink={setFontLink} onSaved={saved} />
        <ImagesSection design={design} onSaved={saved} />
        <StorefrontSection header={header} onHeader={setHeader} onSaved={saved} />
        <LinksSection design={design} onSaved={saved} />
        <SeoSection design={design} onSaved={saved} />
        <WidgetsSection design={design} onSaved={saved} />
      </div>
      <StorefrontPreview
        subdomain={shop?.subdomain}
        version={version}
        onReload={saved}
        draft={draft}
        saved={design.design}
        logoUrl={design.logoUrl}
        changes={draftChanges(draft, design)}
      />
    </div>
  );
}

type SectionProps = { design: Design; onSaved: () => void };

function ColoursSection(props: {
  flags: Flags;
  onFlags: (change: (flags: Flags) => Flags) => void;
  fontLink: string;
  onFontLink: (fontLink: string) => void;
  onSaved: () => void;
}) {
  const { flags, fontLink, onFontLink: setFontLink, onSaved } = props;
  const shopId = useShopId();
  type Body = paths['/self/{shopId}/settings/design']['put']['requestBody']['content']['application/json'];
  const save = useSettingSave(
    (body: Body) => unwrap(api.PUT('/self/{shopId}/settings/design', { ...path(shopId), body })),
    'Design saved',
    onSaved,
  );
  const set = <K extends keyof Flags>(name: K, value: Flags[K]) => props.onFlags((all) => ({ ...all, [name]: value }));
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

function StorefrontSection(props: {
  header: HeaderDraft;
  onHeader: (change: (header: HeaderDraft) => HeaderDraft) => void;
  onSaved: () => void;
}) {
  const { header, onSaved } = props;
  const shopId = useShopId();
  const set = <K extends keyof HeaderDraft>(name: K, value: HeaderDraft[K]) =>
    props.onHeader((all) => ({ ...all, [name]: value }));
  type Body = paths['/self/{shopId}/settings/design/storefront']['put']['requestBody']['content']['application/json'];
  const save = useSettingSave(
    (body: Body) => unwrap(api.PUT('/self/{shopId}/settings/design/storefront', { ...path(shopId), body })),
    'Storefront texts saved',
    onSaved,
  );
  return (
    <SettingsSection
      title="Storefront header"
      description="The title, text and button at the top of the storefront's home page."
      mutation={save}
      fields={['title', 'description', 'buttonText', 'disableTitle', 'disableDescription', 'disableButton']}
      onSubmit={() =>
        save.mutate({
          title: orNull(header.title),
          description: orNull(header.description),
          buttonText: orNull(header.buttonText),
          disableTitle: header.disableTitle,
          disableDescription: header.disableDescription,
          disableButton: header.disableButton,
        })
      }
    >
      <Field label="Title" error={fieldError(save.error, 'title')}>
        {(ids) => (
          <input
            {...ids}
            className="input"
            value={header.title}
            maxLength={200}
            onChange={(e) => set('title', e.target.value)}
          />
        )}
      </Field>
      <Field label="Description" error={fieldError(save.error, 'description')}>
        {(ids) => (
          <textarea
            {...ids}
            className="input"
            value={header.description}
            maxLength={5000}
            onChange={(e) => set('description', e.target.value)}
          />
        )}
      </Field>
      <Field label="Button text" error={fieldError(save.error, 'buttonText')}>
        {(ids) => (
          <input
            {...ids}
            className="input"
            value={header.buttonText}
            maxLength={64}
            onChange={(e) => set('buttonText', e.target.value)}
          />
        )}
      </Field>
      <div className="settings-flags">
        {headerSwitches.map(([name, label]) => (
          <label key={name} className="check">
            <input type="checkbox" checked={header[name]} onChange={(e) => set(name, e.target.checked)} />
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
