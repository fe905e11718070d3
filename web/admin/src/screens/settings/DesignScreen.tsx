import { useState } from 'react';
import type { BodyOf } from '../../api/bodies';
import { ApiError, api, unwrap } from '../../api/client';
import { useSettings } from '../../api/queries/settings';
import { useShop, useShopId } from '../../app/shop';
import { type BodyForm, useBodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
import { Field } from '../../ui/Field';
import { LoadError, Loading, Page } from '../../ui/Page';
import {
  type ColorField,
  colorFields,
  type Design,
  type DesignDraft,
  draftChanges,
  draftOf,
  type Flags,
  flagFields,
  type HeaderDraft,
  headerSwitches,
  isHexColor,
} from './design-draft';
import { StorefrontPreview } from './design-preview';
import { orNull, SettingsSection, useSettingSave } from './section';
import './settings.css';

type SocialLink = Design['links']['socialLinks'][number];
type Platform = SocialLink['platform'];

const platforms = [
  ['website', strings.design.website],
  ['discord', strings.design.discord],
  ['telegram', strings.design.telegram],
  ['youtube', strings.design.youtube],
  ['twitter', strings.design.xTwitter],
  ['instagram', strings.design.instagram],
  ['tiktok', strings.design.tiktok],
  ['email', strings.common.eMail],
  ['other', strings.design.other],
] as const satisfies readonly (readonly [Platform, string])[];
const everyPlatformListed: Exclude<Platform, (typeof platforms)[number][0]> extends never ? true : false = true;
void everyPlatformListed;

const path = (shopId: number) => ({ params: { path: { shopId } } });

export default function DesignScreen() {
  const settings = useSettings(useShopId());
  return (
    <Page title={strings.common.design}>
      {settings.isLoading ? <Loading /> : null}
      {settings.error ? <LoadError error={settings.error} retry={() => settings.refetch()} /> : null}
      {settings.data ? <DesignEditor design={settings.data.design} /> : null}
    </Page>
  );
}

/** The colours form's values: the design's flags, with the font link as typed. */
type ColourValues = Omit<Flags, 'fontLink'> & { fontLink: string };
type ColoursForm = BodyForm<ColourValues, BodyOf<'PUT /self/{shopId}/settings/design'>>;
type HeaderForm = BodyForm<HeaderDraft, BodyOf<'PUT /self/{shopId}/settings/design/storefront'>>;

/** The sections and the preview; the colours and the storefront header are edited here so the preview can show them unsaved. */
function DesignEditor({ design }: { design: Design }) {
  const { shop } = useShop();
  // Bumped after every save: the preview frame is made anew and loads the storefront again.
  const [version, setVersion] = useState(0);
  const saved = () => setVersion((v) => v + 1);
  const colours: ColoursForm = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/design',
    defaultValues: { ...design.design, fontLink: draftOf(design).fontLink },
    toBody: (values) => ({ ...values, fontLink: orNull(values.fontLink.trim()) }),
  });
  const header: HeaderForm = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/design/storefront',
    defaultValues: draftOf(design).header,
    toBody: (values) => ({
      title: orNull(values.title),
      description: orNull(values.description),
      buttonText: orNull(values.buttonText),
      disableTitle: values.disableTitle,
      disableDescription: values.disableDescription,
      disableButton: values.disableButton,
    }),
  });
  // The preview follows every keystroke of both forms.
  const { fontLink, ...flags } = colours.watch();
  const draft: DesignDraft = {
    flags: { ...flags, fontLink: design.design.fontLink },
    fontLink,
    header: header.watch(),
  };
  return (
    <div className="settings-design">
      <div className="stack">
        <ColoursSection form={colours} onSaved={saved} />
        <ImagesSection design={design} onSaved={saved} />
        <StorefrontSection form={header} onSaved={saved} />
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

function ColoursSection({ form, onSaved }: { form: ColoursForm; onSaved: () => void }) {
  const shopId = useShopId();
  const save = useSettingSave(
    (body: BodyOf<'PUT /self/{shopId}/settings/design'>) =>
      unwrap(api.PUT('/self/{shopId}/settings/design', { ...path(shopId), body })),
    strings.design.designSaved,
    onSaved,
  );
  return (
    <SettingsSection title={strings.design.coloursAndDisplay} form={form} mutation={save}>
      <div className="settings-colors">
        {colorFields.map(([name, label]) => (
          <ColourField key={name} form={form} name={name} label={label} />
        ))}
      </div>
      <div className="settings-flags">
        {flagFields.map(([name, label]) => (
          <label key={name} className="check">
            <input type="checkbox" {...form.register(name)} />
            {label}
          </label>
        ))}
      </div>
      <Field label={strings.design.fontStylesheet} error={form.problem('fontLink')} hint={strings.design.anHttpsLinkTo}>
        {(ids) => (
          <input
            {...ids}
            {...form.register('fontLink')}
            className="input"
            type="url"
            placeholder={strings.design.httpsFontsGoogleapisCom}
          />
        )}
      </Field>
    </SettingsSection>
  );
}

/** A colour: a picker and the hex code, both the same value of the form. */
function ColourField({ form, name, label }: { form: ColoursForm; name: ColorField; label: string }) {
  const value = form.watch(name);
  return (
    <Field label={label} error={form.problem(name)}>
      {(ids) => (
        <div className="settings-color">
          <input
            type="color"
            className="input"
            aria-label={strings.design.picker(label)}
            value={isHexColor(value) ? value : '#000000'}
            onChange={(e) => form.setValue(name, e.target.value, { shouldDirty: true })}
          />
          <input {...ids} {...form.register(name)} className="input" maxLength={7} spellCheck={false} />
        </div>
      )}
    </Field>
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
    { to: '/self/{shopId}/settings/design/logo', label: strings.design.logo, url: design.logoUrl, accept: 'image/*' },
    {
      to: '/self/{shopId}/settings/design/storefront/logo',
      label: strings.design.storefrontImage,
      url: design.storefront.imageUrl,
      accept: 'image/*',
    },
    {
      to: '/self/{shopId}/customization/seo/image',
      label: strings.common.seoImage,
      url: design.seo.imageUrl,
      accept: 'image/*',
    },
    {
      to: '/self/{shopId}/customization/seo/favicon',
      label: strings.design.favicon,
      url: design.seo.faviconUrl,
      accept: 'image/png,image/x-icon,image/vnd.microsoft.icon,image/svg+xml,image/*',
    },
  ] as const;
  return (
    <section className="card stack" aria-labelledby="design-images-title">
      <h2 id="design-images-title" className="settings-section-title">
        {strings.common.images}
      </h2>
      <p className="muted small">{strings.design.eachImageIsUploaded}</p>
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
    strings.design.uploaded(props.label),
    props.onSaved,
  );
  const error =
    upload.error instanceof ApiError ? (upload.error.fields.file ?? upload.error.message) : upload.error?.message;
  return (
    <div className="row">
      {props.url ? (
        <img className="settings-image" src={props.url} alt={strings.design.current(props.label.toLowerCase())} />
      ) : (
        <span className="muted small">{strings.design.no(props.label.toLowerCase())}</span>
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
      {upload.isPending ? <span role="status">{strings.common.uploading}</span> : null}
    </div>
  );
}

function StorefrontSection({ form, onSaved }: { form: HeaderForm; onSaved: () => void }) {
  const shopId = useShopId();
  const save = useSettingSave(
    (body: BodyOf<'PUT /self/{shopId}/settings/design/storefront'>) =>
      unwrap(api.PUT('/self/{shopId}/settings/design/storefront', { ...path(shopId), body })),
    strings.design.storefrontTextsSaved,
    onSaved,
  );
  return (
    <SettingsSection
      title={strings.design.storefrontHeader}
      description={strings.design.theTitleTextAnd}
      form={form}
      mutation={save}
    >
      <Field label={strings.common.title} error={form.problem('title')}>
        {(ids) => <input {...ids} {...form.register('title')} className="input" maxLength={200} />}
      </Field>
      <Field label={strings.common.description} error={form.problem('description')}>
        {(ids) => <textarea {...ids} {...form.register('description')} className="input" maxLength={5000} />}
      </Field>
      <Field label={strings.common.buttonText} error={form.problem('buttonText')}>
        {(ids) => <input {...ids} {...form.register('buttonText')} className="input" maxLength={64} />}
      </Field>
      <div className="settings-flags">
        {headerSwitches.map(([name, label]) => (
          <label key={name} className="check">
            <input type="checkbox" {...form.register(name)} />
            {label}
          </label>
        ))}
      </div>
    </SettingsSection>
  );
}

function LinksSection({ design, onSaved }: SectionProps) {
  const shopId = useShopId();
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/settings/design/links',
    defaultValues: { socialLinks: design.links.socialLinks },
    toBody: (values) => ({
      socialLinks: values.socialLinks.map((l) => ({ platform: l.platform, link: l.link.trim() })),
    }),
  });
  const save = useSettingSave(
    (body: BodyOf<'PUT /self/{shopId}/settings/design/links'>) =>
      unwrap(api.PUT('/self/{shopId}/settings/design/links', { ...path(shopId), body })),
    strings.design.linksSaved,
    onSaved,
  );
  const links = form.watch('socialLinks');
  const setLinks = (next: SocialLink[]) => form.setValue('socialLinks', next, { shouldDirty: true });
  const move = (index: number, by: number) => {
    const next = [...form.getValues('socialLinks')];
    const [item] = next.splice(index, 1);
    if (item) next.splice(index + by, 0, item);
    setLinks(next);
  };
  return (
    <SettingsSection
      title={strings.design.socialLinks}
      description={strings.design.shownInTheStorefronts}
      form={form}
      mutation={save}
      extra={
        <button
          type="button"
          className="btn"
          disabled={links.length >= 20}
          onClick={() => setLinks([...form.getValues('socialLinks'), { platform: 'website', link: '' }])}
        >
          {strings.design.addLink}
        </button>
      }
    >
      {links.length === 0 ? <p className="muted small">{strings.design.noLinks}</p> : null}
      {form.problem('socialLinks') ? <p className="field-error">{form.problem('socialLinks')}</p> : null}
      {links.map((link, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows have no id; their place is what identifies them
        <div key={index} className="settings-link-row">
          <Field label={strings.design.linkPlatform(index + 1)} error={form.problem(`socialLinks.${index}.platform`)}>
            {(ids) => (
              <select {...ids} {...form.register(`socialLinks.${index}.platform`)} className="input">
                {platforms.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label={strings.design.linkAddress(index + 1)} error={form.problem(`socialLinks.${index}.link`)}>
            {(ids) => (
              <input
                {...ids}
                {...form.register(`socialLinks.${index}.link`)}
                className="input"
                type={link.platform === 'email' ? 'email' : 'url'}
                placeholder={link.platform === 'email' ? strings.design.helloExampleCom : strings.common.https}
              />
            )}
          </Field>
          <div className="row">
            <button
              type="button"
              className="btn btn-ghost"
              aria-label={strings.design.moveLinkUp(index + 1)}
              disabled={index === 0}
              onClick={() => move(index, -1)}
            >
              ↑
            </button>
            <button
              type="button"
              className="btn btn-ghost"
              aria-label={strings.design.moveLinkDown(index + 1)}
              disabled={index === links.length - 1}
              onClick={() => move(index, 1)}
            >
              ↓
            </button>
            <button
              type="button"
              className="btn btn-ghost"
              aria-label={strings.design.removeLink(index + 1)}
              onClick={() => setLinks(form.getValues('socialLinks').filter((_, i) => i !== index))}
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
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/customization/seo',
    defaultValues: { metaTitle: design.seo.metaTitle ?? '', metaDescription: design.seo.metaDescription ?? '' },
    toBody: (values) => ({ metaTitle: orNull(values.metaTitle), metaDescription: orNull(values.metaDescription) }),
  });
  const save = useSettingSave(
    (body: BodyOf<'PUT /self/{shopId}/customization/seo'>) =>
      unwrap(api.PUT('/self/{shopId}/customization/seo', { ...path(shopId), body })),
    strings.design.seoSaved,
    onSaved,
  );
  const [metaTitle, metaDescription] = form.watch(['metaTitle', 'metaDescription']);
  return (
    <SettingsSection
      title={strings.common.searchEngines}
      description={strings.design.theTitleAndDescription}
      form={form}
      mutation={save}
    >
      <Field label={strings.common.metaTitle} error={form.problem('metaTitle')} hint={`${metaTitle.length} / 70`}>
        {(ids) => <input {...ids} {...form.register('metaTitle')} className="input" maxLength={70} />}
      </Field>
      <Field
        label={strings.common.metaDescription}
        error={form.problem('metaDescription')}
        hint={`${metaDescription.length} / 160`}
      >
        {(ids) => <textarea {...ids} {...form.register('metaDescription')} className="input" maxLength={160} />}
      </Field>
    </SettingsSection>
  );
}

const widgetLabels = [
  ['crispKey', strings.design.crispWebsiteId],
  ['googleAnalyticsKey', strings.design.googleAnalyticsId],
  ['hotjarKey', strings.design.hotjarSiteId],
  ['intercomKey', strings.design.intercomAppId],
] as const;

function WidgetsSection({ design, onSaved }: SectionProps) {
  const shopId = useShopId();
  const w = design.widgets;
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/customization/widgets',
    defaultValues: {
      crispKey: w.crispKey ?? '',
      googleAnalyticsKey: w.googleAnalyticsKey ?? '',
      hotjarKey: w.hotjarKey ?? '',
      intercomKey: w.intercomKey ?? '',
    },
    toBody: (values) => ({
      crispKey: orNull(values.crispKey.trim()),
      googleAnalyticsKey: orNull(values.googleAnalyticsKey.trim()),
      hotjarKey: orNull(values.hotjarKey.trim()),
      intercomKey: orNull(values.intercomKey.trim()),
    }),
  });
  const save = useSettingSave(
    (body: BodyOf<'PUT /self/{shopId}/customization/widgets'>) =>
      unwrap(api.PUT('/self/{shopId}/customization/widgets', { ...path(shopId), body })),
    strings.design.widgetsSaved,
    onSaved,
  );
  return (
    <SettingsSection
      title={strings.design.widgets}
      description={strings.design.chatAndAnalyticsIds}
      form={form}
      mutation={save}
    >
      {widgetLabels.map(([name, label]) => (
        <Field key={name} label={label} error={form.problem(name)}>
          {(ids) => <input {...ids} {...form.register(name)} className="input" maxLength={200} spellCheck={false} />}
        </Field>
      ))}
    </SettingsSection>
  );
}
