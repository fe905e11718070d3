import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { api, setCsrfToken, unwrap } from '../api/client';
import { Field, FormError, fieldError } from '../ui/Field';
import { resetForSession, type Session } from './session';

export function SignIn() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useMutation({
    mutationFn: () => unwrap(api.POST('/self/session', { body: { email, password } })),
    meta: { session: true },
    onSuccess: (session) => {
      setCsrfToken((session as Session).csrfToken);
      // Whatever a previous owner of this tab loaded is not this account's.
      resetForSession(queryClient, session as Session);
    },
  });
  return (
    <main className="auth">
      <form
        className="auth-card"
        onSubmit={(e) => {
          e.preventDefault();
          signIn.mutate();
        }}
      >
        <h1>Sign in to shopd</h1>
        <FormError error={signIn.error} fields={['email', 'password']} />
        <Field label="E-mail" error={fieldError(signIn.error, 'email')}>
          {(ids) => (
            <input
              {...ids}
              className="input"
              type="email"
              name="email"
              autoComplete="username"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          )}
        </Field>
        <Field label="Password" error={fieldError(signIn.error, 'password')}>
          {(ids) => (
            <input
              {...ids}
              className="input"
              type="password"
              name="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <button type="submit" className="btn btn-primary" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
        <p className="muted small">
          No password yet? Run <code>shopd users setup-link --email you@example.com</code> on the server.
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
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const setup = useMutation({
    mutationFn: () => unwrap(api.POST('/self/password-setup', { body: { token, password } })),
  });
  if (setup.isSuccess)
    return (
      <main className="auth">
        <div className="auth-card">
          <h1>Password set</h1>
          <p>
            The password of <strong>{setup.data.email}</strong> is set.
          </p>
          <Link href="/" className="btn btn-primary">
            Sign in
          </Link>
        </div>
      </main>
    );
  const mismatch = repeat.length > 0 && repeat !== password;
  return (
    <main className="auth">
      <form
        className="auth-card"
        onSubmit={(e) => {
          e.preventDefault();
          if (!mismatch) setup.mutate();
        }}
      >
        <h1>Choose your password</h1>
        {token ? null : (
          <div className="alert alert-error" role="alert">
            This page needs the link printed by the server; it carries a one-time token.
          </div>
        )}
        <FormError error={setup.error} fields={['password']} />
        <Field label="New password" hint="At least 10 characters." error={fieldError(setup.error, 'password')}>
          {(ids) => (
            <input
              {...ids}
              className="input"
              type="password"
              autoComplete="new-password"
              required
              minLength={10}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <Field label="Repeat it" error={mismatch ? 'The two passwords differ.' : undefined}>
          {(ids) => (
            <input
              {...ids}
              className="input"
              type="password"
              autoComplete="new-password"
              required
              value={repeat}
              onChange={(e) => setRepeat(e.target.value)}
            />
          )}
        </Field>
        <button type="submit" className="btn btn-primary" disabled={!token || mismatch || setup.isPending}>
          Set password
        </button>
      </form>
    </main>
  );
}
