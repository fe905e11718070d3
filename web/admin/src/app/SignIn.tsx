import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { api, setCsrfToken, unwrap } from '../api/client';
import { useBodyForm } from '../forms/body-form';
import { strings } from '../strings';
import { Field, FormProblems } from '../ui/Field';
import { resetForSession, type Session } from './session';

export function SignIn() {
  const queryClient = useQueryClient();
  const form = useBodyForm({
    operation: 'POST /self/session',
    defaultValues: { email: '', password: '' },
    toBody: (values) => values,
  });
  const signIn = useMutation({
    mutationFn: (body: { email: string; password: string }) => unwrap(api.POST('/self/session', { body })),
    meta: { session: true },
    onSuccess: (session) => {
      setCsrfToken((session as Session).csrfToken);
      // Whatever a previous owner of this tab loaded is not this account's.
      resetForSession(queryClient, session as Session);
    },
  });
  return (
    <main className="auth">
      <form className="auth-card" onSubmit={form.submit(signIn.mutateAsync)} noValidate>
        <h1>{strings.signIn.signInToShopd}</h1>
        <FormProblems form={form} error={signIn.error} />
        <Field label={strings.common.eMail} error={form.problem('email')}>
          {(ids) => (
            <input
              {...ids}
              {...form.register('email')}
              className="input"
              type="email"
              autoComplete="username"
              required
            />
          )}
        </Field>
        <Field label={strings.signIn.password} error={form.problem('password')}>
          {(ids) => (
            <input
              {...ids}
              {...form.register('password')}
              className="input"
              type="password"
              autoComplete="current-password"
              required
            />
          )}
        </Field>
        <button type="submit" className="btn btn-primary" disabled={signIn.isPending}>
          {signIn.isPending ? strings.signIn.signingIn : strings.signIn.signIn}
        </button>
        <p className="muted small">
          {strings.signIn.noPasswordYetRun} <code>{strings.signIn.shopdUsersSetupLink}</code>{' '}
          {strings.signIn.onTheServer}
        </p>
      </form>
    </main>
  );
}

/** `/admin/setup#token=…`: the one-time link printed at the first start (or by `shopd users setup-link`). */
export function SetPassword() {
  // Read once, then taken out of the address bar and the history: the link is a secret.
  const [token] = useState(() => new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '');
  useEffect(() => {
    if (window.location.hash) window.history.replaceState(null, '', window.location.pathname);
  }, []);
  const form = useBodyForm({
    operation: 'POST /self/password-setup',
    defaultValues: { password: '', repeat: '' },
    toBody: (values) => ({ token, password: values.password }),
    check: (values) => ({
      repeat: values.repeat !== values.password ? strings.signIn.theTwoPasswordsDiffer : undefined,
    }),
  });
  const setup = useMutation({
    mutationFn: (body: { token: string; password: string }) => unwrap(api.POST('/self/password-setup', { body })),
  });
  const [password, repeat] = form.watch(['password', 'repeat']);
  if (setup.isSuccess)
    return (
      <main className="auth">
        <div className="auth-card">
          <h1>{strings.signIn.passwordSet}</h1>
          <p>
            {strings.signIn.thePasswordOf} <strong>{setup.data.email}</strong> {strings.signIn.isSet}
          </p>
          <Link href="/" className="btn btn-primary">
            {strings.signIn.signIn}
          </Link>
        </div>
      </main>
    );
  // Said while typing, once the second one is begun.
  const mismatch = repeat.length > 0 && repeat !== password;
  return (
    <main className="auth">
      <form className="auth-card" onSubmit={form.submit(setup.mutateAsync)} noValidate>
        <h1>{strings.signIn.chooseYourPassword}</h1>
        {token ? null : (
          <div className="alert alert-error" role="alert">
            {strings.signIn.thisPageNeedsThe}
          </div>
        )}
        <FormProblems form={form} error={setup.error} />
        <Field
          label={strings.common.newPassword}
          hint={strings.signIn.atLeast10Characters}
          error={form.problem('password')}
        >
          {(ids) => (
            <input
              {...ids}
              {...form.register('password')}
              className="input"
              type="password"
              autoComplete="new-password"
              required
              minLength={10}
            />
          )}
        </Field>
        <Field
          label={strings.signIn.repeatIt}
          error={mismatch ? strings.signIn.theTwoPasswordsDiffer : form.problem('repeat')}
        >
          {(ids) => (
            <input
              {...ids}
              {...form.register('repeat')}
              className="input"
              type="password"
              autoComplete="new-password"
              required
            />
          )}
        </Field>
        <button type="submit" className="btn btn-primary" disabled={!token || mismatch || setup.isPending}>
          {strings.common.setPassword}
        </button>
      </form>
    </main>
  );
}
