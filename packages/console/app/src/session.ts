/** Who is signed in (GET /auth/userinfo), and what the console offers them (the API decides). */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { paths } from './api/schema';

export type Me = paths['/api/v1/auth/userinfo']['get']['responses'][200]['content']['application/json'];

export const MeContext = createContext<Me | undefined>(undefined);

export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside a signed-in console');
  return me;
}

export const isAdmin = (me: Me) => me.roles.includes('enterprise_admin') || me.roles.includes('org_admin');
export const isEnterpriseAdmin = (me: Me) => me.roles.includes('enterprise_admin');
